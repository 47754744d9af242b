"""The pair score (issue 21, docs/score.md): its contract and its formula.

The contract: ``score`` is in [0, 1] on every pair; identical copies score 1; unrelated documents
score near 0; the pairs come best score first; the containments beside it are unchanged. The
formula (text: the larger containment S; code: max(S^4 (0.9 + 0.1 T), T), with T the
rarity-weighted larger containment of the text family) is recomputed here in plain Python from the
index's own tables, and must equal what ``sql/pairs.sql`` gives, pair by pair.
"""
from __future__ import annotations

import math
import random
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import duckdb
import numpy as np
import pytest
from conftest import REPO, random_words

import winnowdb
from winnowdb.ingest.document import code_text_hashes

CODE = REPO / "sample_corpus" / "code"


def _program(seed: int) -> str:
    """A small Python program of made-up names and random statements: unrelated programs share
    some structure (statement shapes), few names."""
    rng = random.Random(seed)
    names = random_words(seed, 40)

    def n() -> str:
        return names[rng.randrange(40)]

    shapes = [lambda: f"{n()} = {n()} + {n()} * {rng.randint(2, 99)}",
              lambda: f"if {n()} > {rng.randint(0, 9)}:\n        {n()} = {n()}",
              lambda: f"for {n()} in range({n()}):\n        {n()}.append({n()})",
              lambda: f"{n()} = {n()}({n()}, {rng.randint(0, 9)})  # {n()} {n()}",
              lambda: f"while {n()} < {n()}:\n        {n()} -= 1",
              lambda: f"{n()} = [{n()} for {n()} in {n()} if {n()}]"]
    lines = []
    for f in range(4):
        lines.append(f"def {names[f]}({n()}, {n()}):")
        for _ in range(6):
            lines.append("    " + rng.choice(shapes)())
        lines.append(f"    return {n()}")
        lines.append("")
    return "\n".join(lines) + "\n"


#: files shorter than one k-gram of code tokens (code_k 12): their text family alone can pair them
TINY_VERSION = '__version__ = "3.10"\n'
TINY_ERRORS = 'class AutocommandError(Exception):\n    """Base class for autocommand exceptions."""\n    pass\n'


@pytest.fixture(scope="module")
def code_index(tmp_path_factory):
    """Code: the sample corpus's files, unrelated generated programs, an exact copy, a renamed copy."""
    root = tmp_path_factory.mktemp("scored")
    src = root / "code"
    shutil.copytree(CODE, src)
    for i in range(8):
        (src / f"prog{i}.py").write_text(_program(i))
    (src / "prog0_copy.py").write_text(_program(0))
    renamed = _program(1)
    for old, new in zip(random_words(1, 40)[:6], ("alpha", "beta", "gamma", "delta", "eps", "zeta")):
        renamed = renamed.replace(old, new)
    (src / "prog1_renamed.py").write_text(renamed)
    for name in ("version.py", "version_copy.py"):  # fewer tokens than one k-gram: no token fingerprint
        (src / name).write_text(TINY_VERSION)
    for name in ("errors.py", "errors_copy.py"):
        (src / name).write_text(TINY_ERRORS)
    db = root / "code.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([src], jobs=1)
        rows = idx.pairs(top=0)
    return db, src, rows


def _by_names(rows: list[dict]) -> dict[frozenset, dict]:
    return {frozenset((Path(r["a"]).name, Path(r["b"]).name)): r for r in rows}


def test_score_is_in_0_1_and_the_ranking(code_index, index_db):
    with winnowdb.open(index_db, read_only=True) as idx:
        text_rows = idx.pairs(top=0)
    for rows in (code_index[2], text_rows):
        assert rows
        scores = [r["score"] for r in rows]
        assert all(0.0 <= s <= 1.0 for s in scores), scores
        assert scores == sorted(scores, reverse=True)
        for r in rows:  # the containments beside the score are as before (0 for a side without tokens)
            assert r["containment_a"] == pytest.approx(r["shared"] / r["fingerprints_a"] if r["fingerprints_a"] else 0)
            assert r["containment_b"] == pytest.approx(r["shared"] / r["fingerprints_b"] if r["fingerprints_b"] else 0)


def test_identical_copies_score_1_and_unrelated_near_0(code_index, index_db, corpus):
    rows = _by_names(code_index[2])
    assert rows[frozenset(("prog0.py", "prog0_copy.py"))]["score"] == pytest.approx(1.0)
    renamed = rows[frozenset(("prog1.py", "prog1_renamed.py"))]
    assert renamed["score"] > 0.8 and renamed["text_containment"] < 1.0
    # unrelated programs of one shape: their tokens overlap, their score stays low
    unrelated = [r for key, r in rows.items() if all(n.startswith("prog") for n in key)
                 and not {"prog0.py", "prog0_copy.py"} >= key and not {"prog1.py", "prog1_renamed.py"} >= key]
    assert unrelated, "the generated programs share structure"
    assert max(max(r["containment_a"], r["containment_b"]) for r in unrelated) > 0.2
    assert max(r["score"] for r in unrelated) < 0.1
    with winnowdb.open(index_db, read_only=True) as idx:
        text = _by_names(idx.pairs(top=0))
    dup = text[frozenset(("comets.txt", "comets_dup.txt"))]
    assert dup["score"] == 1.0 and dup["text_containment"] is None


def test_a_file_without_token_fingerprints_is_paired_by_its_text_family(code_index):
    """Issue 21's vendored files: a module shorter than one k-gram of tokens has no token
    fingerprint; its text family finds its copy, scored T, with no token shared."""
    rows = _by_names(code_index[2])
    for a, b in (("version.py", "version_copy.py"), ("errors.py", "errors_copy.py")):
        r = rows[frozenset((a, b))]
        assert (r["shared"], r["fingerprints_a"], r["fingerprints_b"]) == (0, 0, 0)
        assert r["score"] == pytest.approx(1.0) and r["text_containment"] == pytest.approx(1.0)
        assert r["containment_a"] == r["containment_b"] == r["resemblance"] == 0.0
    assert frozenset(("version.py", "errors.py")) not in rows  # they share no text either
    tiny = {"version.py", "version_copy.py", "errors.py", "errors_copy.py"}
    others = [r for key, r in rows.items() if key & tiny and not key <= tiny]
    assert all(r["score"] < 0.5 for r in others), others


def test_a_query_without_token_fingerprints_finds_its_hits_by_its_text_family(code_index, tmp_path):
    """As pairs: a query shorter than one k-gram of tokens is looked up by its text family, and its
    hits score as their pairs do (shared 0)."""
    db, src, rows = code_index
    pairs = _by_names(rows)
    outside = tmp_path / "errors_elsewhere.py"  # not indexed
    outside.write_text(TINY_ERRORS)
    with winnowdb.open(db, read_only=True) as idx:
        hits = idx.query(src / "version.py", top=0)
        assert [Path(h["path"]).name for h in hits][:1] == ["version_copy.py"]
        for h in hits:
            pair = pairs[frozenset(("version.py", Path(h["path"]).name))]
            assert h["score"] == pytest.approx(pair["score"]) and h["shared"] == 0
            assert h["containment"] == h["contained"] == h["resemblance"] == 0.0
        found = idx.query(outside, top=0)
        assert {Path(h["path"]).name for h in found if h["score"] == pytest.approx(1.0)} == \
            {"errors.py", "errors_copy.py"}
        assert idx.query(outside, top=0, min_shared=10_000) == []


def test_a_query_with_tokens_finds_the_hits_without_them_as_pairs_does(code_index, tmp_path):
    """A code file holding a token-less file's text (here prog0.py with TINY_ERRORS appended) finds
    that file by the text family, as pairs pairs them; every hit scores as its pair does."""
    db, src, _ = code_index
    big = tmp_path / "big.py"
    big.write_text(_program(0) + "\n" + TINY_ERRORS)
    with winnowdb.open(db, read_only=True) as idx:
        hits = {Path(h["path"]).name: h for h in idx.query(big, top=0)}
    assert hits["errors.py"]["score"] == pytest.approx(1.0) and hits["errors.py"]["shared"] == 0
    assert hits["errors_copy.py"]["score"] == pytest.approx(1.0)
    assert hits["prog0.py"]["shared"] > 0  # the token hits as before, beside them
    assert len({h["query_fingerprints"] for h in hits.values()}) == 1  # the query's own count on every hit


def test_a_token_less_pair_without_weighty_evidence_is_not_listed(tmp_path):
    """Two identical token-less files and nothing else: every k-gram they share is in every
    submission, so it weighs ln(N / df) = 0 and the pair has no evidence (score 0): not listed."""
    folder = tmp_path / "two"
    folder.mkdir()
    for name in ("a.py", "b.py"):
        (folder / name).write_text(TINY_VERSION)
    with winnowdb.open(tmp_path / "two.duckdb") as idx:
        idx.add([folder], jobs=1)
        assert idx.pairs(top=0) == []
        assert idx.query(folder / "a.py", top=0) == []


def test_text_pairs_score_their_larger_containment(index_db):
    with winnowdb.open(index_db, read_only=True) as idx:
        rows = idx.pairs(top=0)
    text = [r for r in rows if r["text_containment"] is None]
    assert text
    for r in text:
        assert r["score"] == pytest.approx(max(r["containment_a"], r["containment_b"]))


def _reference_scores(db: Path, max_df: int) -> dict[frozenset, float]:
    """max(S^4 (0.9 + 0.1 T), T) for code pairs with both families, else the larger containment: the formula of
    docs/score.md over the stored rows, in plain Python; hashes in more than ``max_df`` documents
    count nowhere. A pair with a side that has no token fingerprint shares no token: it is there
    when the text families share a hash, scored T."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        docs = dict(con.execute("SELECT doc, path FROM documents WHERE kind = 'document'").fetchall())
        tokens, texts = defaultdict(set), defaultdict(set)
        for h, d in con.execute("SELECT hash, doc FROM fingerprints").fetchall():
            if d in docs:
                tokens[docs[d]].add(h)
        for h, d in con.execute("SELECT hash, doc FROM code_text_hashes").fetchall():
            if d in docs:
                texts[docs[d]].add(h)
    finally:
        con.close()
    n = len(docs)
    tokenless = {path for path in docs.values() if not tokens[path]}  # no token fingerprint at all
    for family in (tokens, texts):
        df = Counter(h for hs in family.values() for h in hs)
        for path in family:
            family[path] = {h for h in family[path] if df[h] <= max_df}

    def weighted(family: dict[str, set]):
        df = Counter(h for hs in family.values() for h in hs)
        weight = {h: math.log(n / c) for h, c in df.items()}
        return lambda a, b: max(sum(weight[h] for h in family[a] & family[b]) / sum(weight[h] for h in family[x])
                                for x in (a, b))

    t_of = weighted(texts)
    out = {}
    paths = sorted(docs.values())
    for i, a in enumerate(paths):
        for b in paths[i + 1:]:
            shared = len(tokens[a] & tokens[b])
            if not shared:
                if {a, b} & tokenless and texts[a] & texts[b]:  # a side without token fingerprints
                    out[frozenset((a, b))] = t_of(a, b)
                continue
            cmax = max(shared / len(tokens[a]), shared / len(tokens[b]))
            both = texts.get(a) and texts.get(b)
            if both:
                t = t_of(a, b)
                out[frozenset((a, b))] = max(cmax ** 4 * (0.9 + 0.1 * t), t)
            else:
                out[frozenset((a, b))] = cmax
    return out


def test_the_sql_score_is_the_documented_formula(code_index):
    db, _, rows = code_index
    with winnowdb.open(db, read_only=True) as idx:
        max_df = int(idx.stats(top_common=0)["default_max_df"])
    want = _reference_scores(db, max_df)
    got = {frozenset((r["a"], r["b"])): r["score"] for r in rows}
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-9), sorted(key)


def test_add_stores_each_code_documents_text_family(code_index):
    db, src, _ = code_index
    con = duckdb.connect(str(db), read_only=True)
    try:
        stored = defaultdict(list)
        query = "SELECT t.hash, d.path FROM code_text_hashes t JOIN documents d USING (doc)"
        for h, path in con.execute(query).fetchall():
            stored[path].append(h)
        settings = dict(con.execute("SELECT key, value FROM settings").fetchall())
    finally:
        con.close()
    files = sorted(str(p.resolve()) for p in src.iterdir())
    assert sorted(stored) == files  # every code document has one (the corpus has no tiny file)
    want = code_text_hashes([Path(f).read_text() for f in files], settings)
    assert want is not None
    for f, h in zip(files, want):
        assert np.array_equal(np.sort(np.array(stored[f], dtype=np.int64)), h), f
        assert len(stored[f]) == len(set(stored[f]))  # distinct per document


def test_text_documents_have_no_text_family_and_remove_deletes_it(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(CODE, src / "code")
    (src / "essay.txt").write_text(" ".join(random_words(3, 400)))
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([src], jobs=1)
        count = "SELECT d.normalizer LIKE 'code:%', COUNT(t.doc) FROM documents d " \
                "LEFT JOIN code_text_hashes t USING (doc) GROUP BY 1 ORDER BY 1"
        assert [tuple(r) for r in idx.sql(count)[1]][0] == (False, 0)
        victim = sorted((src / "code").iterdir())[0]
        idx.remove([str(victim)])
        _, left = idx.sql("SELECT COUNT(*) FROM code_text_hashes t WHERE NOT EXISTS "
                          "(SELECT 1 FROM documents d WHERE d.doc = t.doc)")
        assert left[0][0] == 0
        # a changed file: its new text family replaces the old one
        changed = sorted((src / "code").iterdir())[0]
        before = idx.sql("SELECT COUNT(*) FROM code_text_hashes")[1][0][0]
        changed.write_text(changed.read_text() + "\n# an added comment line with new words in it\n")
        idx.add([src], jobs=1)
        _, rows = idx.sql("SELECT COUNT(*), COUNT(DISTINCT doc) FROM code_text_hashes")
        assert rows[0][1] == len(list((src / "code").iterdir())) and rows[0][0] >= before


def test_workers_store_the_same_text_family(tmp_path, code_index):
    _, src, _ = code_index
    got = {}
    for jobs in (1, 2):
        db = tmp_path / f"j{jobs}.duckdb"
        with winnowdb.open(db) as idx:
            import winnowdb.ingest.prepare as prepare

            old = prepare.PARALLEL_MIN_BYTES, prepare.PARALLEL_MIN_FILES
            prepare.PARALLEL_MIN_BYTES, prepare.PARALLEL_MIN_FILES = 0, 1  # use workers on this little
            try:
                idx.add([src], jobs=jobs)
            finally:
                prepare.PARALLEL_MIN_BYTES, prepare.PARALLEL_MIN_FILES = old
            got[jobs] = sorted(idx.sql("SELECT d.path, t.hash FROM code_text_hashes t JOIN documents d USING (doc)")[1])
    assert got[1] == got[2] and got[1]


def test_an_index_made_without_the_text_family_scores_code_by_its_tokens(tmp_path, cli):
    db = tmp_path / "plain.duckdb"
    r = cli("add", CODE, "--db", db, "--no-code-text")
    assert r.exit_code == 0, r.output
    with winnowdb.open(db, read_only=True) as idx:
        assert idx.sql("SELECT COUNT(*) FROM code_text_hashes")[1] == [(0,)]
        assert {k: idx.store.settings[k] for k in ("code_text_k", "code_text_w")} == {"code_text_k": "0",
                                                                                      "code_text_w": "0"}
        rows = idx.pairs(top=0)
    assert rows and all(r["text_containment"] is None for r in rows)
    assert all(r["score"] == max(r["containment_a"], r["containment_b"]) for r in rows)
    # it is a choice, not a lack: upgrade and check leave it alone, and the setting is fixed
    assert "nothing to do" in cli("upgrade", "--db", db).stdout
    r = cli("check", "--db", db)
    assert r.exit_code == 0 and "no text family" not in r.output
    r = cli("add", CODE, "--db", db, "--code-text")
    assert r.exit_code != 0 and "code_text_k=0" in r.output


def test_a_query_hit_scores_as_the_pair_does(code_index, tmp_path):
    db, src, rows = code_index
    pairs = {frozenset((Path(r["a"]).name, Path(r["b"]).name)): r for r in rows}
    with winnowdb.open(db, read_only=True) as idx:
        for name in ("prog1.py", "prog2.py", "stack.py", "queue.java"):
            hits = idx.query(src / name, top=0)
            assert hits and [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
            for h in hits:  # an indexed query: the very numbers of its pairs
                pair = pairs[frozenset((name, Path(h["path"]).name))]
                assert h["score"] == pytest.approx(pair["score"], abs=1e-9), (name, h["path"])
                assert h["text_containment"] == pytest.approx(pair["text_containment"])
        # a file that is not indexed: an exact copy of prog2 scores 1 with it, and its text family
        # is computed from the file (a renamed copy keeps the tokens, loses much of the text)
        outside = tmp_path / "outside.py"
        outside.write_text((src / "prog2.py").read_text())
        top = idx.query(outside, top=3)[0]
        assert Path(top["path"]).name == "prog2.py" and top["score"] == 1.0 and top["text_containment"] == 1.0
        renamed = tmp_path / "renamed.py"
        text = (src / "prog2.py").read_text()
        for old, new in zip(random_words(2, 40)[:8], ("aa", "bb", "cc", "dd", "ee", "ff", "gg", "hh")):
            text = text.replace(old, new)
        renamed.write_text(text)
        top = idx.query(renamed, top=3)[0]
        assert Path(top["path"]).name == "prog2.py" and 0.9 <= top["score"] < 1.0 and top["text_containment"] < 0.9


def test_a_text_query_scores_its_larger_containment(index_db, corpus):
    with winnowdb.open(index_db, read_only=True) as idx:
        hits = idx.query(corpus / "essays" / "tides.txt", top=0)
    assert hits
    for h in hits:
        assert h["text_containment"] is None
        assert h["score"] == pytest.approx(max(h["containment"], h["contained"]))


def test_compare_explains_the_pair_score(code_index, index_db, corpus, cli, tmp_path):
    db, src, rows = code_index
    pairs = {frozenset((Path(r["a"]).name, Path(r["b"]).name)): r for r in rows}
    with winnowdb.open(db, read_only=True) as idx:
        for a, b in (("prog1.py", "prog1_renamed.py"), ("prog0.py", "prog0_copy.py"), ("prog2.py", "prog6.py")):
            cmp = idx.compare(src / a, src / b)
            pair = pairs[frozenset((a, b))]
            assert cmp.score["score"] == pytest.approx(pair["score"], abs=1e-9)
            assert cmp.score["text_containment"] == pytest.approx(pair["text_containment"])
            assert 0 <= cmp.score["coverage_a"] <= 1 and 0 <= cmp.score["coverage_b"] <= 1
        same = idx.compare(src / "prog0.py", src / "prog0_copy.py").score
        assert same["score"] == 1.0 and same["coverage_a"] > 0.95 and same["coverage_b"] > 0.95
    with winnowdb.open(index_db, read_only=True) as idx:
        text = idx.compare(corpus / "essays" / "tides.txt", corpus / "essays" / "tides_copy.txt").score
    assert text["text_containment"] is None
    assert text["score"] == pytest.approx(max(text["containment_a"], text["containment_b"]))
    assert 0.2 < text["coverage_b"] < 1  # a partial copy: part of each side is in a passage
    # the terminal and the report say it
    r = cli("compare", src / "prog1.py", src / "prog1_renamed.py", "--db", db)
    said = " ".join(r.stdout.split())  # as one line, however the terminal wrapped it
    assert r.exit_code == 0 and "score " in said and "verbatim text" in said
    assert "identifiers and literals" in said and "comments and docstrings" in said
    out = tmp_path / "report.html"
    r = cli("report", "--html", out, "--db", db, "--top", "3")
    assert r.exit_code == 0, r.output
    html = out.read_text()
    assert "verbatim text" in html and "identifiers and literals" in html and "passages cover" in html
    assert ">score</th>" in html


def test_compare_shows_the_evidence_by_kind(code_index, index_db, corpus, tmp_path):
    db, src, _ = code_index
    # the same comments and docstring over other code; a program told again in the same code
    # with other comments; a renamed copy
    (tmp_path / "told_a.py").write_text('"""Sum the squares of a list, skipping the negative numbers."""\n'
                                        '# walk the list once and keep a running total\n'
                                        'def f(xs):\n    return sum(x * x for x in xs if x >= 0)\n')
    (tmp_path / "told_b.py").write_text('"""Sum the squares of a list, skipping the negative numbers."""\n'
                                        '# walk the list once and keep a running total\n'
                                        'def total(values):\n    acc = 0\n    for v in values:\n'
                                        '        if v < 0:\n            continue\n        acc += v ** 2\n'
                                        '    return acc\n')
    (tmp_path / "recommented.py").write_text("# an entirely different remark about nothing at all\n"
                                             + _program(0).replace("#", "# said otherwise:"))
    with winnowdb.open(db, read_only=True) as idx:
        told = idx.compare(tmp_path / "told_a.py", tmp_path / "told_b.py").score
        renamed = idx.compare(src / "prog1.py", src / "prog1_renamed.py").score
        copy = idx.compare(src / "prog0.py", src / "prog0_copy.py").score
        recommented = idx.compare(src / "prog0.py", tmp_path / "recommented.py").score
    with winnowdb.open(index_db, read_only=True) as idx:
        text = idx.compare(corpus / "essays" / "tides.txt", corpus / "essays" / "tides_copy.txt").score
    assert copy["identifiers_literals"] == 1.0 and copy["comments_docstrings"] == 1.0
    assert told["comments_docstrings"] == 1.0 and told["identifiers_literals"] < 0.5  # the words, not the code
    assert renamed["identifiers_literals"] < 0.95 and max(renamed["containment_a"], renamed["containment_b"]) == 1.0
    assert recommented["identifiers_literals"] == 1.0 and recommented["comments_docstrings"] < 0.5
    assert text["identifiers_literals"] is None and text["comments_docstrings"] is None
    with winnowdb.open(db, read_only=True) as idx:  # a side without comments: none of that kind
        bare = tmp_path / "bare.py"
        bare.write_text("def f(xs):\n    return sum(x * x for x in xs if x >= 0)\n")
        assert idx.compare(tmp_path / "told_a.py", bare).score["comments_docstrings"] is None


def test_query_top_finds_a_small_file_copied_whole_before_larger_partial_matches(tmp_path):
    # a short file lifted whole into the query scores 1 (all of it is found) though it shares
    # fewer fingerprints than longer files the query quotes a little of: --top picks its hits
    # by the score, not by the count of shared fingerprints
    words = random_words(11, 6000)
    rng = random.Random(11)

    def text(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n))

    small = text(80)
    bigs = [text(2500) for _ in range(12)]
    quoted = [" ".join(b.split()[:300]) for b in bigs]  # 300 words of each long file
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "small.txt").write_text(small + "\n")
    for i, b in enumerate(bigs):
        (corpus / f"long{i:02d}.txt").write_text(b + "\n")
    query = tmp_path / "query.txt"
    query.write_text(text(100) + " " + " ".join(quoted[:6]) + " " + small + " " + " ".join(quoted[6:]) + "\n")
    with winnowdb.open(tmp_path / "idx.duckdb") as idx:
        idx.add([corpus], jobs=1)
        every = idx.query(query, top=0)
        top3 = idx.query(query, top=3)
    shared = {Path(h["path"]).name: h["shared"] for h in every}
    assert sorted(shared.values(), reverse=True).index(shared["small.txt"]) >= 12  # the fewest shared
    assert Path(every[0]["path"]).name == "small.txt" and every[0]["score"] == 1.0
    assert [h["path"] for h in top3] == [h["path"] for h in every[:3]]
