"""Broder's shingles, MIN_s sketches, resemblance / containment estimates and super shingles, on
constructed documents in real indexes (paper examples, self-resemblance, a paragraph in a book)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import VOCAB, random_words

import winnowdb
from winnowdb.analysis.sketches import document_sketches, pair_estimates, super_shingle_candidates
from winnowdb.errors import WinnowError
from winnowdb.fingerprint.hashing import kgram_hashes
from winnowdb.normalize.words import normalize_words

_words = random_words


def _mutate(words: list[str], seed: int, edits: int) -> list[str]:
    rng = random.Random(seed)
    out = list(words)
    for _ in range(edits):
        out[rng.randrange(len(out))] = rng.choice(VOCAB)
    return out


def _doc_ids(idx) -> dict[str, int]:
    return {Path(p).name: d for p, d in idx.store.connection.execute("SELECT path, doc FROM documents").fetchall()}


def _stored_sets(idx) -> dict[int, set]:
    sets: dict[int, set] = {}
    for doc, h in idx.store.connection.execute("SELECT doc, hash FROM fingerprints").fetchall():
        sets.setdefault(doc, set()).add(h)
    return sets


def _jaccard(x: set, y: set) -> float:
    return len(x & y) / len(x | y) if x | y else 0.0


# ------------------------------------------------------------------ shingles (the paper's example)
def test_paper_example_four_shingling_has_three_shingles(tmp_path):
    text = "a rose is a rose is a rose"
    units = normalize_words(text).units
    assert units.shape[0] == 8
    h = kgram_hashes(units, 4, salt=0x11)
    assert h.shape[0] == 5 and len(set(h.tolist())) == 3  # (a rose is a), (rose is a rose), (is a rose is)
    (tmp_path / "rose.txt").write_text(text + "\n")
    with winnowdb.open(tmp_path / "r.duckdb", normalizer="words", selection="all", k=4) as idx:
        idx.add([tmp_path / "rose.txt"])
        sk = document_sketches(idx.reader)
        (doc, sketch), = sk.items()
        assert sketch.shape[0] == 3
        stored = idx.store.connection.execute("SELECT hash FROM fingerprints").fetchnumpy()["hash"]
        assert sketch.tolist() == sorted(set(stored.tolist()))


# ------------------------------------------------------------------ a corpus of related documents
@pytest.fixture(scope="module")
def related(tmp_path_factory):
    """Word-shingled index (k=4, every shingle kept): a book, one of its paragraphs, near copies."""
    root = tmp_path_factory.mktemp("related")
    paragraphs = [_words(100 + i, 80) for i in range(30)]
    book = "\n\n".join(" ".join(p) for p in paragraphs)
    (root / "book.txt").write_text(book)
    (root / "paragraph.txt").write_text(" ".join(paragraphs[17]))
    base = _words(1, 400)
    (root / "essay.txt").write_text(" ".join(base))
    (root / "essay_v2.txt").write_text(" ".join(_mutate(base, 2, 6)))
    (root / "essay_v3.txt").write_text(" ".join(_mutate(base, 3, 30)))
    (root / "unrelated.txt").write_text(" ".join(_words(9, 300)))
    (root / "tiny.txt").write_text(" ".join(_words(10, 6)))  # 3 shingles: fewer than a super shingle
    (root / "tiny_copy.txt").write_text(" ".join(_words(10, 6) + ["extra"]))
    db = root / "related.duckdb"
    with winnowdb.open(db, normalizer="words", selection="all", k=4) as idx:
        idx.add([root])
    return root, db


def test_resemblance_of_a_document_with_itself_is_one(related):
    root, db = related
    with winnowdb.open(db, read_only=True) as idx:
        ids = _doc_ids(idx)
        e = ids["essay.txt"]
        est = pair_estimates(idx.reader, [e], [e], s=100)
        assert est["resemblance"].tolist() == [1.0]
        assert est["sketch_shared"].tolist() == [100]
        # the exact measures agree, for the sketch query too (a non-indexed copy of the file)
        assert idx.compare(root / "essay.txt", root / "essay.txt").score["resemblance"] == 1.0
    copy = root.parent / "essay_copy_outside.txt"
    copy.write_text((root / "essay.txt").read_text())
    with winnowdb.open(db, read_only=True) as idx:
        hits = idx.query_sketch(copy, s=50)
    assert Path(hits[0]["path"]).name == "essay.txt"
    assert hits[0]["resemblance"] == 1.0 and hits[0]["sketch_size"] == 50


def test_paragraph_in_a_book_contained_not_resembling(related):
    root, db = related
    with winnowdb.open(db, read_only=True) as idx:
        hits = {Path(h["path"]).name: h for h in idx.query(root / "paragraph.txt", top=0)}
        book = hits["book.txt"]
        assert book["containment"] > 0.97  # the paragraph is (almost entirely) found in the book
        assert book["resemblance"] < 0.06  # but the two are not "roughly the same"
        ids = _doc_ids(idx)
        est = pair_estimates(idx.reader, [ids["book.txt"]], [ids["paragraph.txt"]], s=100)
        assert est["resemblance"][0] < 0.15
        sk = {Path(h["path"]).name: h for h in idx.query_sketch(root / "paragraph.txt", s=100, top=0)}
        assert sk.get("book.txt", {"resemblance": 0.0})["resemblance"] < 0.15


def test_sketch_is_the_s_smallest_hashes(related):
    _, db = related
    with winnowdb.open(db, read_only=True) as idx:
        sets = _stored_sets(idx)
        for s in (1, 10, 100, 10_000):
            sk = document_sketches(idx.reader, s=s, max_df=10**9)
            for doc, full in sets.items():
                assert sk[doc].tolist() == sorted(full)[:s]


def test_estimate_is_exact_when_sketches_hold_everything(related):
    _, db = related
    with winnowdb.open(db, read_only=True) as idx:
        sets = _stored_sets(idx)
        docs = sorted(sets)
        a, b = zip(*[(x, y) for x in docs for y in docs if x < y])
        est = pair_estimates(idx.reader, a, b, s=100_000, max_df=10**9)
        for x, y, r in zip(est["a"], est["b"], est["resemblance"]):
            assert r == pytest.approx(_jaccard(sets[int(x)], sets[int(y)]), abs=1e-12)


def test_estimate_close_to_exact_for_s_100(related):
    _, db = related
    with winnowdb.open(db, read_only=True) as idx:
        sets = _stored_sets(idx)
        ids = _doc_ids(idx)
        pairs = [("essay.txt", "essay_v2.txt"), ("essay.txt", "essay_v3.txt"), ("essay_v2.txt", "essay_v3.txt"),
                 ("essay.txt", "unrelated.txt")]
        a = [ids[x] for x, _ in pairs]
        b = [ids[y] for _, y in pairs]
        est = pair_estimates(idx.reader, a, b, s=100, max_df=10**9)
        got = {(int(x), int(y)): r for x, y, r in zip(est["a"], est["b"], est["resemblance"])}
        for x, y in zip(a, b):
            exact = _jaccard(sets[x], sets[y])
            # the standard error of MIN_100 is at most 0.05; 0.15 is three of them
            assert abs(got[(x, y)] - exact) < 0.15, (x, y, exact, got[(x, y)])
        assert got[(ids["essay.txt"], ids["unrelated.txt"])] == 0.0


def test_query_sketch_large_s_equals_exact_query(related):
    root, db = related
    with winnowdb.open(db, read_only=True) as idx:
        exact = {h["path"]: h["resemblance"] for h in idx.query(root / "essay.txt", top=0)}
        est = {h["path"]: h["resemblance"] for h in idx.query_sketch(root / "essay.txt", s=1_000_000, top=0)}
    assert est.keys() == exact.keys()
    for p in exact:
        assert est[p] == pytest.approx(exact[p])


def test_super_shingles_link_near_copies_only(related):
    _, db = related
    with winnowdb.open(db, read_only=True) as idx:
        ids = _doc_ids(idx)
        names = {v: k for k, v in ids.items()}
        a, b = super_shingle_candidates(idx.reader, s=100, length=6, max_df=10**9)
        pairs = {frozenset((names[int(x)], names[int(y)])) for x, y in zip(a, b)}
        assert (a < b).all()
    assert frozenset(("essay.txt", "essay_v2.txt")) in pairs
    # containment is not detected, and short documents have no super shingle
    assert frozenset(("book.txt", "paragraph.txt")) not in pairs
    assert not any("tiny.txt" in p for p in pairs)
    assert not any("unrelated.txt" in p for p in pairs)


def test_super_shingle_length_longer_than_sketch(related):
    _, db = related
    with winnowdb.open(db, read_only=True) as idx:
        with pytest.raises(WinnowError):
            super_shingle_candidates(idx.reader, s=5, length=6)
        with pytest.raises(WinnowError):
            document_sketches(idx.reader, s=0)


def test_common_hashes_are_left_out_of_sketches(tmp_path):
    # a passage shared by every document is common material (df > max_df): no sketch holds it
    common = _words(50, 40)
    for i in range(12):
        (tmp_path / f"d{i}.txt").write_text(" ".join(common + _words(60 + i, 60)))
    with winnowdb.open(tmp_path / "c.duckdb", normalizer="words", selection="all", k=4) as idx:
        idx.add([tmp_path])
        sets = _stored_sets(idx)
        everywhere = set.intersection(*sets.values())
        assert len(everywhere) >= 30
        sk = document_sketches(idx.reader, s=1000, max_df=10)
        assert all(not (set(v.tolist()) & everywhere) for v in sk.values())
        sk_all = document_sketches(idx.reader, s=1000, max_df=12)
        assert all(everywhere <= set(v.tolist()) for v in sk_all.values())


def test_cli_query_sketch(related, cli):
    root, db = related
    res = cli("query", root / "essay.txt", "--db", db, "--sketch", "100", "--format", "json", "--top", "0")
    assert res.exit_code == 0, res.output
    hits = json.loads(res.stdout)
    assert [Path(h["path"]).name for h in hits][:2] == ["essay_v2.txt", "essay_v3.txt"]
    for h in hits:
        assert set(h) == {"path", "sketch_shared", "sketch_size", "resemblance"}
        assert 0 < h["sketch_shared"] <= h["sketch_size"] <= 100
        assert h["resemblance"] == pytest.approx(h["sketch_shared"] / h["sketch_size"])
    res = cli("query", root / "essay.txt", "--db", db, "--sketch", "100")
    assert res.exit_code == 0 and "sketch_shared" in res.stdout
    res = cli("query", root / "essay.txt", "--db", db, "--sketch", "0")
    assert res.exit_code != 0 and "Traceback" not in res.output
    # fewer rows shown than found: the rest of the result must not keep the connection busy for
    # the command's next statement (DuckDB: "connection has an unfinished result")
    res = cli("query", root / "essay.txt", "--db", db, "--sketch", "100", "--format", "json", "--top", "1")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == hits[:1]
    # the plain query keeps its own fields
    res = cli("query", root / "essay.txt", "--db", db, "--format", "json")
    assert res.exit_code == 0 and set(json.loads(res.stdout)[0]) == {"path", "score", "shared", "containment",
                                                                   "contained", "resemblance"}
