"""The Hamming search in SQL (sql/near_duplicates_of.sql, sql/near_duplicate_pairs.sql) on real
DuckDB indexes: it returns exactly what comparing every pair returns, for every layout, and a
stored simhash with at most k bits flipped is always found."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import winnowdb
from winnowdb.analysis.near_duplicates import brute_force_pairs, make_layout, near_duplicate_pairs, near_simhash
from winnowdb.fingerprint.simhash import hamming
from winnowdb.ingest.document import document_simhash
from winnowdb.store import sqlfiles


def pair_key(a: str, b: str, root: Path) -> frozenset:
    """A pair of indexed paths as a set of names relative to ``root``."""
    return frozenset(Path(p).resolve().relative_to(root).as_posix() for p in (a, b))


U64 = (1 << 64) - 1


def signed(v: int) -> int:
    v &= U64
    return v - (1 << 64) if v >= 1 << 63 else v


def insert_documents(idx, simhashes, *, submissions=None, kinds=None) -> list[str]:
    """Add synthetic documents with the given simhashes (one Arrow insert); returns their paths."""
    n = len(simhashes)
    paths = [f"/synthetic/doc{i:07d}.txt" for i in range(n)]
    table = pa.table({
        "doc": pa.array(range(1, n + 1), pa.int32()),
        "path": paths,
        "submission": submissions if submissions is not None else paths,
        "kind": kinds if kinds is not None else ["document"] * n,
        "simhash": pa.array(np.asarray(simhashes, dtype=np.int64), pa.int64()),
    })
    con = idx.store.connection
    con.register("_synthetic", table)
    try:
        con.execute("""
            INSERT INTO documents BY NAME
            SELECT doc, path, submission, CAST(NULL AS VARCHAR) AS label, kind, 'text' AS normalizer,
                   path AS content_hash, path AS normalized_hash, 'utf-8' AS encoding,
                   CAST(100 AS BIGINT) AS bytes, CAST(100 AS BIGINT) AS chars, CAST(80 AS BIGINT) AS units,
                   CAST(10 AS BIGINT) AS fingerprints, simhash, TIMESTAMP '2024-01-01 00:00:00' AS added_at,
                   MIN(doc) OVER (PARTITION BY submission) AS sub, CAST(10 AS BIGINT) AS hashes
            FROM _synthetic""")
    finally:
        con.unregister("_synthetic")
    return paths


def random_simhashes(n: int, seed: int, *, planted: int = 0, k: int = 3) -> np.ndarray:
    """n random 64-bit values, the first ``planted`` of them each followed by a neighbour 0..k bits away."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-2**63, 2**63 - 1, size=n, dtype=np.int64, endpoint=True)
    for i in range(0, 2 * planted, 2):
        v = int(x[i])
        for b in rng.choice(64, size=int(rng.integers(0, k + 1)), replace=False):
            v ^= 1 << int(b)
        x[i + 1] = signed(v)
    return x


def pairs_of(rows, paths) -> set[tuple[int, int]]:
    index = {p: i for i, p in enumerate(paths)}
    return {tuple(sorted((index[r["a"]], index[r["b"]]))) for r in rows}


@pytest.fixture(scope="module")
def random_index(tmp_path_factory):
    """An index of 4,000 random simhashes with 400 planted near pairs (distance 0-4)."""
    db = tmp_path_factory.mktemp("simhash") / "random.duckdb"
    sims = random_simhashes(4000, seed=11, planted=400, k=4)
    with winnowdb.open(db) as idx:
        paths = insert_documents(idx, sims)
    return db, sims, paths


@pytest.fixture(scope="module")
def random_open(random_index):
    """``random_index`` opened read-only once for the module: (Index, simhashes, paths)."""
    db, sims, paths = random_index
    with winnowdb.open(db, read_only=True) as idx:
        yield idx, sims, paths


LAYOUTS = [None, (4,), (5,), (6,), (4, 4), (7,), ()]


def layout_for(k, levels):
    """The layout with these levels for distance k; None for the automatic choice; False when
    the levels cannot serve k (a level needs more than k blocks and some bits)."""
    if levels is None:
        return None
    try:
        return make_layout(k, levels)
    except ValueError:
        return False


@pytest.mark.parametrize("levels", LAYOUTS, ids=lambda lv: "auto" if lv is None else str(lv))
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_pairs_equal_brute_force(random_index, k, levels):
    db, sims, paths = random_index
    layout = layout_for(k, levels)
    if layout is False:  # an impossible layout is refused, never silently used
        with pytest.raises(ValueError):
            make_layout(k, levels)
        return
    expected = brute_force_pairs(sims, k)
    with winnowdb.open(db, read_only=True) as idx:
        rows = near_duplicate_pairs(idx.reader, hamming=k, layout=layout)
    got = pairs_of(rows, paths)
    assert got == expected
    assert len(rows) == len(got)  # each pair once, even when several tables find it
    assert len(expected) >= 100 * min(k + 1, 4) // 2  # the planted pairs are there
    for r in rows:
        assert r["a"] < r["b"]
        assert r["distance"] == hamming(r["simhash_a"], r["simhash_b"]) <= k
    assert [r["distance"] for r in rows] == sorted(r["distance"] for r in rows)


@pytest.mark.parametrize("k", [4, 6])
def test_pairs_equal_brute_force_larger_k(random_index, k):
    db, sims, paths = random_index
    with winnowdb.open(db, read_only=True) as idx:
        assert pairs_of(idx.near_duplicates(hamming=k), paths) == brute_force_pairs(sims, k)


@pytest.mark.parametrize("levels", [None, (4,), (5,), (4, 4), ()], ids=str)
def test_query_equals_brute_force(random_index, levels):
    db, sims, paths = random_index
    rng = np.random.default_rng(5)
    with winnowdb.open(db, read_only=True) as idx:
        for i in rng.choice(len(sims), size=30, replace=False):
            for k in (0, 3, 5):
                layout = layout_for(k, levels)
                if layout is False:
                    continue
                hits = near_simhash(idx.reader, int(sims[i]), hamming=k, layout=layout)
                d = np.array([hamming(int(s), int(sims[i])) for s in sims])
                assert {h["path"] for h in hits} == {paths[j] for j in np.flatnonzero(d <= k)}
                assert all(h["distance"] == d[paths.index(h["path"])] for h in hits)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_flipping_at_most_k_bits_is_always_found(random_open, data):
    idx, sims, paths = random_open
    k = data.draw(st.integers(0, 8), label="k")
    i = data.draw(st.integers(0, len(sims) - 1), label="stored document")
    flips = data.draw(st.sets(st.integers(0, 63), max_size=k), label="flipped bits")
    value = int(sims[i])
    for b in flips:
        value ^= 1 << b
    hits = near_simhash(idx.reader, signed(value), hamming=k)
    found = {h["path"]: h["distance"] for h in hits}
    assert found.get(paths[i]) == len(flips)
    assert all(d <= k for d in found.values())


def test_exclusions(tmp_path):
    # boilerplate documents, documents without a simhash (0) and pairs inside one submission
    # are never reported; a query leaves out its own submission
    sims = [5, 5 ^ 1, 5 ^ 2, 0, 0, 5 ^ 4, 0x0F0F0F0F0F0F0F0F]
    subs = ["s1", "s2", "s3", "s4", "s5", "s2", "s6"]
    kinds = ["document", "document", "boilerplate", "document", "document", "document", "document"]
    with winnowdb.open(tmp_path / "x.duckdb") as idx:
        paths = insert_documents(idx, sims, submissions=subs, kinds=kinds)
        got = pairs_of(idx.near_duplicates(hamming=3), paths)
        assert got == {(0, 1), (0, 5)}  # not (1, 5): both in submission s2; not 2 (boilerplate); not 3-4 (0)
        hits = near_simhash(idx.reader, 5, hamming=3, exclude="s1")
        assert {h["path"] for h in hits} == {paths[1], paths[5]}
        assert [h["path"] for h in near_simhash(idx.reader, 5, hamming=3, top=1)] == [paths[0]]
        assert len(idx.near_duplicates(hamming=3, top=1)) == 1


def test_near_identical_files_end_to_end(tmp_path):
    # real files through `add`: a long text and a copy with one sentence changed are near-duplicates,
    # an unrelated text is not
    import random

    from fingerprint.test_simhash import document, sentence, topic_words

    base = document(1, 150)
    edited = list(base)
    edited[70] = sentence(random.Random("x"), topic_words(99))
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "original.txt").write_text(" ".join(base))
    (corpus / "edited.txt").write_text(" ".join(edited))
    (corpus / "other.txt").write_text(" ".join(document(2, 150)))
    (corpus / "empty.txt").write_text("... !!! ...")
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([corpus])
    with winnowdb.open(db, read_only=True) as idx:
        stored = dict(idx.sql("SELECT path, simhash FROM documents")[1])
        assert stored[str(corpus / "original.txt")] == document_simhash(" ".join(base))
        assert stored[str(corpus / "empty.txt")] == 0
        pairs = idx.near_duplicates()
        assert [pair_key(p["a"], p["b"], corpus) for p in pairs] == [frozenset({"original.txt", "edited.txt"})]
        hits = idx.simhash_query(corpus / "edited.txt")
        assert [Path(h["path"]).name for h in hits] == ["original.txt"]
        # a file that is not indexed is hashed from its text
        (tmp_path / "outside.txt").write_text(" ".join(base))
        hits = idx.simhash_query(tmp_path / "outside.txt")
        assert {Path(h["path"]).name for h in hits} == {"edited.txt", "original.txt"}
        assert {h["path"]: h["distance"] for h in hits}[str(corpus / "original.txt")] == 0


def test_sample_corpus_near_duplicates(index_db, corpus):
    with winnowdb.open(index_db, read_only=True) as idx:
        pairs = {pair_key(p["a"], p["b"], corpus): p["distance"] for p in idx.near_duplicates(hamming=3)}
        # the byte-identical copy; nothing else in the sample corpus is that close
        assert pairs == {frozenset({"essays/comets.txt", "essays/comets_dup.txt"}): 0}
        # the reformatted Java class with one added method is near at a looser distance
        wide = {pair_key(p["a"], p["b"], corpus) for p in idx.near_duplicates(hamming=8)}
        assert frozenset({"code/queue.java", "code/Queue2.java"}) in wide


def test_simhash_sql_on_a_fresh_index_then_on_four_documents(tmp_path):
    # Each query run as the commands run it (sqlfiles.bind), first on a fresh index: nothing, and
    # a count of 0, not an error; then on four documents: the original, one bit flipped, three
    # bits flipped (at the distance searched: found, one closer: not), one far away.
    original = signed(0x0123_4567_89AB_CDEF)
    flipped, three, far = signed(original ^ (1 << 40)), signed(original ^ 0b1110), signed(~original)
    with winnowdb.open(tmp_path / "empty.duckdb") as idx:
        con = idx.store.connection
        con.register("simhash_masks", make_layout(3, (4,)).table())

        def rows(name: str, **values) -> list[tuple]:
            values = {"hamming": 3, "simhash": original, "exclude": None, "limit_rows": 10, "path": "/x", **values}
            sql = sqlfiles.load(name)
            return con.execute(sql, sqlfiles.bind(sql, values)).fetchall()

        assert rows("near_duplicate_pairs") == []
        assert rows("near_duplicates_of") == []
        assert rows("simhash_of_document") == []
        assert rows("simhash_document_count") == [(0,)]
        a, b, t, f = insert_documents(idx, [original, flipped, three, far])
        assert rows("near_duplicate_pairs") == [(a, b, 1, original, flipped), (a, t, 3, original, three)]
        assert rows("near_duplicate_pairs", hamming=2) == [(a, b, 1, original, flipped)]
        assert rows("near_duplicate_pairs", hamming=0) == []
        assert rows("near_duplicates_of") == [(a, 0, original), (b, 1, flipped), (t, 3, three)]
        assert rows("near_duplicates_of", hamming=2) == [(a, 0, original), (b, 1, flipped)]
        assert rows("near_duplicates_of", exclude=a, limit_rows=1) == [(b, 1, flipped)]
        assert rows("near_duplicates_of", simhash=far) == [(f, 0, far)]
        assert rows("simhash_of_document", path=b) == [(flipped, b)]
        assert rows("simhash_document_count") == [(4,)]


def test_sql_has_no_engine_specific_xor():
    # XOR is xor() in DuckDB but ^ in Spark (where DuckDB's ^ is a power): the queries use
    # bit_count(x | y) - bit_count(x & y) instead
    from store.test_sql_files import code_of

    for name in ("near_duplicate_pairs", "near_duplicates_of"):
        code = code_of(sqlfiles.load(name)).lower()
        assert "xor(" not in code and "^" not in code and ">>" not in code and "<<" not in code
        assert "bit_count(" in code


def test_candidates_are_counted_exactly(random_index):
    # near_duplicate_candidates.sql: per table, the pairs of documents agreeing on its bits
    from winnowdb.analysis.near_duplicates import choose_layout

    db, sims, _ = random_index
    layout = choose_layout(3, len(sims), batch=True)
    masks = layout.columns()
    u = np.asarray(sims, dtype=np.int64).view(np.uint64)
    want = 0
    for mask in np.asarray(masks["mask"], dtype=np.int64).view(np.uint64):
        _, counts = np.unique(u & mask, return_counts=True)
        want += int((counts.astype(np.int64) * (counts - 1) // 2).sum())
    with winnowdb.open(db, read_only=True) as idx, idx.store.relations(simhash_masks=masks):
        assert int(idx.store.value("near_duplicate_candidates")) == want > 0


def test_a_pair_search_of_too_alike_simhashes_is_refused_with_the_way_out(tmp_path, monkeypatch, cli):
    # documents whose simhashes nearly all coincide make every pair a candidate: the search is
    # refused in one line, before it forms any pair, and says what to run instead
    from winnowdb.analysis import near_duplicates

    db = tmp_path / "alike.duckdb"
    rng = np.random.default_rng(5)
    base = int(rng.integers(0, 2**63))
    sims = [signed(base ^ (1 << int(b))) for b in rng.integers(0, 64, size=80)]  # all within 2 bits
    with winnowdb.open(db) as idx:
        insert_documents(idx, sims)
    res = cli("near-dups", "--db", db, "--format", "csv", "--top", "0")
    assert res.exit_code == 0 and len(res.stdout.splitlines()) == 1 + 80 * 79 // 2, res.output
    monkeypatch.setattr(near_duplicates, "MAX_CANDIDATES", 1000)
    for fmt in ("table", "csv"):
        res = cli("near-dups", "--db", db, "--format", fmt)
        assert res.exit_code == 2 and "Traceback" not in res.output, res.output
        assert "too alike for a pair search" in res.output and "winnowdb clusters" in res.output, res.output
