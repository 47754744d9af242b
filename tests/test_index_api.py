"""The Python API end to end on a copy of sample_corpus: planted copies, boilerplate, passages,
incremental updates, removal, settings. Real DuckDB files, real corpus files."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import BOILERPLATE_ESSAYS, PLANTED, PLANTED_OPTIONAL, pair_key

import winnowdb
from winnowdb.errors import WinnowError

QUERY_FIELDS = {"path", "shared", "containment", "contained", "resemblance"}
PAIR_FIELDS = {"a", "b", "shared", "containment_a", "containment_b", "resemblance"}


def _pairs(db, **kw):
    with winnowdb.open(db, create=False, read_only=True) as idx:
        return idx.pairs(top=0, **kw)


def _pair_set(rows, root):
    return {pair_key(r["a"], r["b"], root) for r in rows}


def _lines_covered(records, side):
    covered = set()
    for r in records:
        lo, hi = r[f"lines_{side}"]
        covered.update(range(lo, hi + 1))
    return covered


def _compare(db, a, b):
    from winnowdb.report.compare_view import passage_records

    with winnowdb.open(db, create=False, read_only=True) as idx:
        cmp = idx.compare(a, b)
    return cmp, passage_records(cmp)


# ------------------------------------------------------------------ planted copies
def test_planted_copies_are_found(index_db, corpus):
    rows = _pairs(index_db)
    found = _pair_set(rows, corpus)
    for a, b in PLANTED:
        assert frozenset((a, b)) in found, (a, b)
    # anything else is incidental (README: no other pair shares more than 21 consecutive
    # normalized characters): it ranks below every planted copy and is a tiny share of either file
    planted = {frozenset(p) for p in PLANTED}
    allowed = planted | {frozenset(p) for p in PLANTED_OPTIONAL}
    ranks = [i for i, r in enumerate(rows) if pair_key(r["a"], r["b"], corpus) in allowed]
    assert ranks == list(range(len(ranks))), [pair_key(r["a"], r["b"], corpus) for r in rows[:8]]
    for r in rows:
        if pair_key(r["a"], r["b"], corpus) not in allowed:
            assert max(r["containment_a"], r["containment_b"]) < 0.05, r


def test_exactly_the_planted_copies_with_long_kgrams(corpus, tmp_path):
    # With k = 22 letters no k-gram can come from an accidental overlap of at most 21 letters, so
    # the pairs are exactly the planted copies (t = 22 + 20 - 1 = 41 <= the shortest planted
    # passage). (Prose counts the spaces too: "Europe and North America." is 25 of its units.)
    db = tmp_path / "k22.duckdb"
    with winnowdb.open(db, k=22, w=20, text_normalizer="text") as idx:
        idx.add([corpus / "boilerplate"], boilerplate=True)
        idx.add([corpus / "essays", corpus / "code"])
        found = _pair_set(idx.pairs(top=0), corpus)
    required = {frozenset(p) for p in PLANTED} | {frozenset(PLANTED_OPTIONAL[0])}  # + bees quote
    assert required <= found <= required | {frozenset(p) for p in PLANTED_OPTIONAL}


def test_pair_fields_and_scores(index_db, corpus):
    rows = _pairs(index_db)
    for r in rows:
        assert PAIR_FIELDS <= set(r)
        assert r["a"] < r["b"]
        assert r["shared"] >= 1
        for f in ("containment_a", "containment_b", "resemblance"):
            assert 0 < r[f] <= 1
        assert r["resemblance"] <= min(r["containment_a"], r["containment_b"]) + 1e-12
    by_pair = {pair_key(r["a"], r["b"], corpus): r for r in rows}
    dup = by_pair[frozenset(("essays/comets.txt", "essays/comets_dup.txt"))]
    assert dup["containment_a"] == dup["containment_b"] == dup["resemblance"] == 1.0
    # ranked by the larger containment, so the exact duplicate comes first
    assert pair_key(rows[0]["a"], rows[0]["b"], corpus) == frozenset(("essays/comets.txt", "essays/comets_dup.txt"))


def test_pairs_top_limits_and_zero_means_all(index_db):
    everything = _pairs(index_db)
    assert len(everything) >= 4
    with winnowdb.open(index_db, create=False, read_only=True) as idx:
        assert idx.pairs(top=2) == everything[:2]
        assert idx.pairs(top=0) == everything
        assert len(idx.pairs(min_shared=10**6, top=0)) == 0


def test_boilerplate_header_never_makes_a_pair(index_db, corpus):
    rows = _pairs(index_db)
    for i, a in enumerate(BOILERPLATE_ESSAYS):
        for b in BOILERPLATE_ESSAYS[i + 1:]:
            # no passage in the header (lines 1-5), and at most incidental overlap elsewhere
            cmp, records = _compare(index_db, corpus / a, corpus / b)
            assert not (_lines_covered(records, "a") & set(range(1, 6))), (a, b, records)
            assert not (_lines_covered(records, "b") & set(range(1, 6))), (a, b, records)
            for r in rows:
                if pair_key(r["a"], r["b"], corpus) == frozenset((a, b)):
                    assert max(r["containment_a"], r["containment_b"]) < 0.05, r
    # the header file itself is not a document that pairs with anything
    assert not any("boilerplate" in r["a"] + r["b"] for r in rows)


def test_without_boilerplate_the_header_would_pair(tmp_path, corpus):
    # the control experiment: the same essays without the --boilerplate file do pair up
    with winnowdb.open(tmp_path / "nobp.duckdb") as idx:
        idx.add([corpus / p for p in BOILERPLATE_ESSAYS])
        found = _pair_set(idx.pairs(top=0), corpus)
    assert len(found) == 6


# ------------------------------------------------------------------ passages
@pytest.mark.parametrize("a,b,lines_a,lines_b,normalizer", [
    ("essays/tides.txt", "essays/tides_copy.txt", (5, 5), (5, 5), None),
    # the paraphrase changes case, line breaks and punctuation: to the text normalizer (letters
    # only) the paragraph is one passage; prose sees the punctuation (test_cli has that case)
    ("essays/glaciers.txt", "essays/glaciers_paraphrase.txt", (5, 5), (5, 8), "text"),
])
def test_compare_finds_the_planted_passage(index_db, corpus, tmp_path, a, b, lines_a, lines_b, normalizer):
    if normalizer is not None:
        index_db = tmp_path / f"{normalizer}.duckdb"
        with winnowdb.open(index_db, text_normalizer=normalizer) as idx:
            idx.add([corpus / "boilerplate"], boilerplate=True)
            idx.add([corpus / "essays"])
    cmp, records = _compare(index_db, corpus / a, corpus / b)
    assert len(records) == 1, records
    (rec,) = records
    assert tuple(rec["lines_a"]) == lines_a
    assert tuple(rec["lines_b"]) == lines_b
    assert Path(rec["path_a"]) == corpus / a and Path(rec["path_b"]) == corpus / b
    assert rec["text_a"] == Path(corpus / a).read_text()[rec["start_a"]:rec["end_a"]]
    # the passage is the copied paragraph: most of its normalized length, in both files
    from winnowdb.normalize.text import normalize_text

    size = {"essays/tides.txt": 470, "essays/glaciers.txt": 252}[a]
    assert len(normalize_text(rec["text_a"])) >= 0.8 * size
    assert normalize_text(rec["text_a"]).units.tolist() == normalize_text(rec["text_b"]).units.tolist()
    assert cmp.score["shared"] == rec["matches"]


def test_compare_scores_are_the_pairs_scores(corpus, tmp_path):
    """compare, pairs and query count the same fingerprints: boilerplate and very common hashes
    are left out of the shared count and of both sizes, so the three report the same numbers."""
    header = (corpus / "boilerplate" / "course_header.txt").read_text()
    tides = (corpus / "essays" / "tides.txt").read_text()
    bees = (corpus / "essays" / "bees.txt").read_text()
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text(header + tides)
    (folder / "b.txt").write_text(header + tides[: len(tides) // 2] + bees)
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([corpus / "boilerplate"], boilerplate=True)
        idx.add([corpus / "essays", corpus / "code", folder])
        for cap in (None, 2):  # the default cap, and one low enough to leave out common hashes
            rows = idx.pairs(top=0, max_df=cap)
            assert any({Path(r["a"]).name, Path(r["b"]).name} == {"a.txt", "b.txt"} for r in rows)
            for r in rows:
                cmp = idx.compare(r["a"], r["b"], max_df=cap)
                assert {key: cmp.score[key] for key in ("shared", "containment_a", "containment_b")} == \
                    {key: r[key] for key in ("shared", "containment_a", "containment_b")}, (cap, r)
                assert cmp.score["resemblance"] == pytest.approx(r["resemblance"])
                hit = [h for h in idx.query(r["a"], top=0, max_df=cap) if h["path"] == r["b"]]
                assert hit and hit[0]["shared"] == r["shared"], (cap, r, hit)
                assert hit[0]["containment"] == r["containment_a"] and hit[0]["contained"] == r["containment_b"]
            # all at once (as the HTML report does): the same scores and passages, pair by pair
            both = idx.compare_many([(r["a"], r["b"]) for r in rows], max_df=cap)
            assert len(both) == len(rows)
            for r, cmp in zip(rows, both):
                assert (cmp.a.name, cmp.b.name) == (r["a"], r["b"])
                assert cmp.score["shared"] == r["shared"] and cmp.score["containment_b"] == r["containment_b"]
                one = idx.compare(r["a"], r["b"], max_df=cap)
                assert cmp.passages == one.passages and cmp.score == one.score
                assert cmp.a.texts == one.a.texts and cmp.b.paths == one.b.paths
        assert len(idx.pairs(top=0, max_df=2)) < len(idx.pairs(top=0))  # the low cap did leave some out
        for source in (folder / "a.txt", corpus / "essays" / "tides.txt", corpus / "code" / "queue.java"):
            every = idx.query(source, top=0)
            assert every and all(idx.query(source, top=n) == every[:n] for n in (1, 2, 5))


def test_compare_exact_duplicate_covers_the_whole_file(index_db, corpus):
    cmp, records = _compare(index_db, corpus / "essays/comets.txt", corpus / "essays/comets_dup.txt")
    text = (corpus / "essays/comets.txt").read_text()
    nlines = text.rstrip("\n").count("\n") + 1
    assert len(records) == 1
    assert records[0]["lines_a"] == [1, nlines] and records[0]["lines_b"] == [1, nlines]
    assert cmp.score["containment_a"] == cmp.score["containment_b"] == 1.0


def test_compare_reformatted_code(index_db, corpus):
    cmp, records = _compare(index_db, corpus / "code/queue.java", corpus / "code/Queue2.java")
    big = [r for r in records if r["matches"] >= 5]
    # queue.java (48 lines, 3 of them a doc comment) is found nearly whole in Queue2.java ...
    covered_a = _lines_covered(big, "a")
    assert len(covered_a & set(range(1, 49))) >= 35
    # ... and the method added to Queue2.java (`int peek()`, lines 38-46) is not part of it
    peek = set(range(39, 46))
    assert not (_lines_covered(big, "b") & peek)
    assert cmp.score["containment_a"] > 0.8


def test_compare_unindexed_files(index_db, tmp_path, corpus):
    tides = (corpus / "essays/tides.txt").read_text().splitlines()
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("Some words of my own about the sea.\n" + tides[4] + "\n")
    b.write_text("\n\n" + tides[4].upper() + "\nThe end.\n")
    cmp, records = _compare(index_db, a, b)
    assert len(records) == 1
    assert records[0]["lines_a"] == [2, 2] and records[0]["lines_b"] == [3, 3]


# ------------------------------------------------------------------ query
def test_query_ranks_the_copy_first(index_db, corpus):
    with winnowdb.open(index_db, create=False, read_only=True) as idx:
        hits = idx.query(corpus / "essays/tides.txt")
    assert hits, "no hits"
    assert Path(hits[0]["path"]) == corpus / "essays/tides_copy.txt"
    assert all(Path(h["path"]) != corpus / "essays/tides.txt" for h in hits)  # not itself
    for h in hits:
        assert QUERY_FIELDS <= set(h)
    assert [h["containment"] for h in hits] == sorted((h["containment"] for h in hits), reverse=True)


def test_query_non_indexed_file(index_db, corpus, tmp_path):
    glaciers = (corpus / "essays/glaciers.txt").read_text().splitlines()[4]
    q = tmp_path / "student.txt"
    q.write_text("My essay.\n\nI read that " + glaciers.lower().replace(",", " ;") + "\nThat is all.\n")
    with winnowdb.open(index_db, create=False, read_only=True) as idx:
        hits = idx.query(q, top=0)
    top2 = {Path(h["path"]).relative_to(corpus).as_posix() for h in hits[:2]}
    assert top2 == {"essays/glaciers.txt", "essays/glaciers_paraphrase.txt"}
    assert hits[0]["contained"] > 0 and hits[0]["containment"] > 0.5


def test_query_missing_file_is_a_clear_error(index_db, tmp_path):
    with winnowdb.open(index_db, create=False, read_only=True) as idx:
        with pytest.raises(WinnowError, match="no such file"):
            idx.query(tmp_path / "nope.txt")


def test_query_top(index_db, corpus, tmp_path):
    everything = tmp_path / "all.txt"
    everything.write_text("\n\n".join(p.read_text() for p in sorted((corpus / "essays").glob("*.txt"))))
    with winnowdb.open(index_db, create=False, read_only=True) as idx:
        all_hits = idx.query(everything, top=0)
        assert len(all_hits) == 16
        assert len(idx.query(everything)) == 10  # the default
        assert idx.query(everything, top=3) == all_hits[:3]


# ------------------------------------------------------------------ incremental updates
def test_re_adding_unchanged_files_is_a_no_op(fresh_index):
    corpus, db = fresh_index
    with winnowdb.open(db) as idx:
        before = idx.sql("SELECT doc, path, content_hash FROM documents ORDER BY doc")[1]
        nfp = idx.sql("SELECT COUNT(*) FROM fingerprints")[1][0][0]
        s = idx.add([corpus / "essays", corpus / "code"])
        assert (s.added, s.updated, s.unchanged, len(s.skipped), s.fingerprints) == (0, 0, 21, 0, 0)
        s = idx.add([corpus / "boilerplate"], boilerplate=True)
        assert (s.added, s.updated, s.unchanged) == (0, 0, 1)
        assert idx.sql("SELECT doc, path, content_hash FROM documents ORDER BY doc")[1] == before
        assert idx.sql("SELECT COUNT(*) FROM fingerprints")[1][0][0] == nfp


def test_editing_a_file_updates_it_and_its_pairs(fresh_index):
    corpus, db = fresh_index
    tides = corpus / "essays/tides.txt"
    copy = corpus / "essays/tides_copy.txt"
    light = corpus / "essays/lighthouses.txt"
    key_copy = frozenset(("essays/tides.txt", "essays/tides_copy.txt"))
    key_light = frozenset(("essays/lighthouses.txt", "essays/tides.txt"))
    assert key_copy in _pair_set(_pairs(db), corpus)
    # the copy loses its copied paragraph; lighthouses gains it
    paragraph = tides.read_text().splitlines()[4]
    copy.write_text(copy.read_text().replace(paragraph, "I wrote this paragraph myself, honestly."))
    light.write_text(light.read_text() + "\n" + paragraph + "\n")
    with winnowdb.open(db) as idx:
        s = idx.add([corpus / "essays", corpus / "code"])
        assert (s.added, s.updated, s.unchanged) == (0, 2, 19)
        assert idx.sql(f"SELECT COUNT(*) FROM documents WHERE path = '{copy}'")[1][0][0] == 1
    found = _pair_set(_pairs(db), corpus)
    assert key_copy not in found
    assert key_light in found
    assert frozenset(("essays/lighthouses.txt", "essays/tides_copy.txt")) not in found
    # the stored text is the new text
    with winnowdb.open(db, create=False, read_only=True) as idx:
        cmp = idx.compare(light, tides)
        assert len(cmp.passages) == 1
        assert list(cmp.a.texts.values()) == [light.read_text()]


def test_remove_deletes_the_document_and_its_fingerprints(fresh_index):
    corpus, db = fresh_index
    target = corpus / "essays/tides_copy.txt"
    with winnowdb.open(db) as idx:
        (doc,) = idx.sql(f"SELECT doc FROM documents WHERE path = '{target}'")[1][0]
        assert idx.sql(f"SELECT COUNT(*) FROM fingerprints WHERE doc = {doc}")[1][0][0] > 0
        assert idx.remove([target]) == [str(target)]
        assert idx.sql(f"SELECT COUNT(*) FROM documents WHERE doc = {doc}")[1][0][0] == 0
        assert idx.sql(f"SELECT COUNT(*) FROM fingerprints WHERE doc = {doc}")[1][0][0] == 0
        assert idx.sql(f"SELECT COUNT(*) FROM document_texts WHERE doc = {doc}")[1][0][0] == 0
        assert idx.remove([target]) == []  # already gone
        hits = idx.query(corpus / "essays/tides.txt")
        assert all(Path(h["path"]) != target for h in hits)
    found = _pair_set(_pairs(db), corpus)
    assert frozenset(("essays/tides.txt", "essays/tides_copy.txt")) not in found
    assert frozenset(("essays/comets.txt", "essays/comets_dup.txt")) in found


def test_remove_a_directory(fresh_index):
    corpus, db = fresh_index
    with winnowdb.open(db) as idx:
        gone = idx.remove([corpus / "code"])
        assert sorted(Path(p).name for p in gone) == ["Queue2.java", "queue.java", "sort.c",
                                                      "stack.py", "stack_renamed.py"]
        assert idx.sql("SELECT COUNT(*) FROM documents WHERE kind = 'document'")[1][0][0] == 16
        orphans = idx.sql("SELECT COUNT(*) FROM fingerprints WHERE doc NOT IN (SELECT doc FROM documents)")
        assert orphans[1][0][0] == 0


def test_removing_the_boilerplate_brings_the_header_pairs_back(fresh_index):
    corpus, db = fresh_index
    with winnowdb.open(db) as idx:
        idx.remove([corpus / "boilerplate"])
    found = _pair_set(_pairs(db), corpus)
    assert frozenset(BOILERPLATE_ESSAYS[:2]) in found


# ------------------------------------------------------------------ settings and errors
def test_settings_are_stored_and_fixed(index_db, tmp_path):
    from winnowdb.index import DEFAULTS

    with winnowdb.open(index_db, create=False, read_only=True) as idx:
        k, w = idx.k, idx.w
        assert (k, w) == (DEFAULTS["k"], DEFAULTS["w"])
        assert {"k", "w", "normalizer", "hash_version", "schema_version"} <= set(idx.settings)
    with pytest.raises(WinnowError, match=f"k={k}"):
        winnowdb.open(index_db, k=k + 1)
    with pytest.raises(WinnowError, match=f"w={w}"):
        winnowdb.open(index_db, w=w + 1)
    with winnowdb.open(index_db, k=k, w=w, read_only=True):  # matching settings are fine
        pass
    with winnowdb.open(tmp_path / "small.duckdb", k=5, w=4) as idx:
        assert (idx.k, idx.w) == (5, 4)
    with winnowdb.open(tmp_path / "small.duckdb") as idx:  # no settings given: the stored ones
        assert (idx.k, idx.w) == (5, 4)


def test_missing_index_is_not_created_when_asked_not_to(tmp_path):
    with pytest.raises(WinnowError, match="no index"):
        winnowdb.open(tmp_path / "missing.duckdb", create=False)
    assert not (tmp_path / "missing.duckdb").exists()


def test_non_duckdb_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("this is not a database\n" * 50)
    with pytest.raises(WinnowError, match="not a winnowdb index"):
        winnowdb.open(bad)
    assert bad.read_text() == "this is not a database\n" * 50  # left untouched


def test_an_empty_duckdb_file_becomes_an_index_with_a_new_index_settings(tmp_path):
    """An existing DuckDB file without tables is made an index: with the settings a new file
    would get (defaults and versions as well as the options given), not only the options given."""
    import duckdb

    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    (tmp_path / "a.txt").write_text("the quick brown fox jumps over the lazy dog, then runs far away\n" * 20)
    (tmp_path / "b.txt").write_text((tmp_path / "a.txt").read_text())
    made = {}
    for name, db in (("empty", empty), ("new", tmp_path / "new.duckdb")):
        with winnowdb.open(db, w=5) as idx:
            idx.add([tmp_path / "a.txt", tmp_path / "b.txt"])
            made[name] = {k: v for k, v in idx.settings.items() if k != "created_at"}
            assert len(idx.pairs(top=0)) == 1
    assert made["empty"] == made["new"]
    assert made["empty"]["w"] == "5" and "k" in made["empty"] and "hash_version" in made["empty"]


def test_sql_read_only(index_db):
    with winnowdb.open(index_db, create=False, read_only=True) as idx:
        cols, rows = idx.sql("SELECT COUNT(*) AS n FROM documents")
        assert cols == ["n"] and rows == [(22,)]
        with pytest.raises(WinnowError):
            idx.sql("DELETE FROM fingerprints")
        with pytest.raises(WinnowError, match="SQL error"):
            idx.sql("SELECT nonsense FROM nowhere")


def test_stats(index_db):
    with winnowdb.open(index_db, create=False, read_only=True) as idx:
        st = idx.stats()
    assert st["documents"] == 21 and st["boilerplate"] == 1 and st["submissions"] == 21
    assert st["fingerprints"] > 0 and st["distinct_hashes"] > 0


@pytest.mark.parametrize("top", [1, 3, 10, 100])
def test_stats_common_fingerprints_are_exactly_the_most_widespread(tmp_path, top):
    """stats' common fingerprints, computed with a shortcut (df only for hashes that can make the
    list), equal a brute-force count: hashes repeated many times inside one document (many
    occurrences, df 1), phrases shared by many submissions, a submission of several files."""
    from conftest import random_words

    shared = " ".join(random_words(1, 40))
    refrain = " ".join(random_words(2, 12))
    root = tmp_path / "c"
    for i in range(9):
        folder = root / f"s{i}"
        folder.mkdir(parents=True)
        body = " ".join(random_words(10 + i, 150))
        (folder / "a.txt").write_text(body + (" " + shared if i % 3 else ""))
        if i == 4:  # a second file of submission s4 repeating the shared phrase: df counts s4 once
            (folder / "b.txt").write_text(shared + " " + " ".join(random_words(30, 60)))
        if i == 7:  # one document repeating a refrain: many occurrences, one submission
            (folder / "b.txt").write_text(" ".join([refrain] * 40))
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([root], submission_depth=1)
        common = idx.stats(top_common=top)["common"]
        rows = idx.store.connection.execute("SELECT f.hash, f.doc, d.submission, d.chars FROM fingerprints f "
                                     "JOIN documents d ON d.doc = f.doc WHERE d.kind = 'document'").fetchall()
        texts = dict(idx.store.connection.execute("SELECT doc, text FROM document_texts").fetchall())
    subs, occ, first = {}, {}, {}
    for h, doc, sub, chars in rows:
        subs.setdefault(h, set()).add(sub)
        occ[h] = occ.get(h, 0) + 1
        first[h] = min(first.get(h, (chars, doc)), (chars, doc))  # the shortest document, then the first
    expected = sorted(subs, key=lambda h: (-len(subs[h]), -occ[h], h))[:top]
    assert [(c["hash"], c["df"], c["occurrences"], c["example_doc"]) for c in common] == \
        [(h, len(subs[h]), occ[h], first[h][1]) for h in expected]
    assert common[0]["df"] == 6  # the shared phrase: s1, s2, s4 (twice, counted once), s5, s7, s8
    # each shown in its example document's text (the index stores no spans: stats finds them)
    for c in common:
        assert c["example_text"] and c["example_text"] == texts[c["example_doc"]][c["example_start"]:c["example_end"]]
    words = set(shared.split())
    for c in (c for c in common if c["df"] == 6):  # a k-gram of the shared phrase (maybe a word cut)
        inner = c["example_text"].split()[1:-1]
        assert inner and set(inner) <= words, c["example_text"]
    if top == 100:  # room for df-1 hashes: the refrain's, repeated 40 times, come first
        assert any(c["df"] == 1 and c["occurrences"] >= 30 for c in common)


def test_in_memory_index_finds_the_same_pairs_and_writes_no_file(index_db, corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with winnowdb.open(":memory:") as idx:
        idx.add([corpus / "boilerplate"], boilerplate=True)
        idx.add([corpus / "essays", corpus / "code"])
        in_memory = _pair_set(idx.pairs(top=0), corpus)
    assert in_memory == _pair_set(_pairs(index_db), corpus)
    assert not (tmp_path / ":memory:").exists() and list(tmp_path.iterdir()) == []
    with pytest.raises(WinnowError, match="read-only"):
        winnowdb.open(":memory:", read_only=True)


def test_add_restores_the_checkpoint_threshold_and_leaves_no_log(tmp_path, monkeypatch):
    """``add`` lets the write-ahead log grow past DuckDB's 16 MB default while it commits its
    batches (each commit still durable) and puts the default back afterwards; what it committed
    is in the file after close, with no log left over."""
    import duckdb

    from winnowdb.ingest import pipeline

    monkeypatch.setattr(pipeline, "BATCH_BYTES", 1024 * 1024)  # several batches of ~1 MB
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    words = [f"word{i}" for i in range(5000)]
    for i in range(40):  # ~4 MB, written as several batches
        (corpus / f"d{i:02d}.txt").write_text(" ".join(words[(i * 37 + j * 11) % 5000] for j in range(12000)))
    db = tmp_path / "w.duckdb"
    with winnowdb.open(db) as idx:
        before = idx.store.connection.execute("SELECT current_setting('checkpoint_threshold')").fetchall()[0][0]
        summary = idx.add([corpus], jobs=1)
        after = idx.store.connection.execute("SELECT current_setting('checkpoint_threshold')").fetchall()[0][0]
    assert summary.added == 40 and summary.batches > 1
    assert before == after
    assert not Path(str(db) + ".wal").exists()
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT COUNT(*) FROM documents").fetchall()[0][0] == 40
    assert con.execute("SELECT SUM(fingerprints) FROM documents").fetchall()[0][0] == \
        con.execute("SELECT COUNT(*) FROM fingerprints").fetchall()[0][0] == summary.fingerprints
    con.close()
