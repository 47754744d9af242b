"""An add stores its fingerprint rows bucket by bucket, each bucket its own commit, before one
transaction indexes its documents (store/runs.py). An add stopped between two buckets leaves rows
of documents that are still pending: no read may see them, ``check`` accepts them, and the next
add drops them before it stores the documents again, ending with the index an uninterrupted add
makes. (The same with SIGKILL at the ``part:N`` hold points: tests/reliability/test_crash.py.)
"""
from __future__ import annotations

import random
from pathlib import Path

import duckdb

import winnowdb
from winnowdb.store import buckets, runs
from winnowdb.store.check import check_index

WORDS = ["".join(random.Random(i).choice("abcdefghijklmnopqrst") for _ in range(6)) for i in range(500)]


def _corpus(root: Path) -> Path:
    """Forty essays; every fifth carries a long passage of the essay before it."""
    rng = random.Random(3)
    root.mkdir()
    essays = [[rng.choice(WORDS) for _ in range(300)] for _ in range(40)]
    for i, words in enumerate(essays):
        if i % 5 == 4:
            words = words[:100] + essays[i - 1][50:250]
        (root / f"essay{i:02d}.txt").write_text(" ".join(words) + "\n")
    return root


def _content(db: Path) -> dict:
    """Per path: its fingerprint rows (hash, pos, span), sorted; and the kept statistics."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows: dict[str, list] = {}
        for path, h, pos in con.execute(
                "SELECT d.path, f.hash, f.pos FROM fingerprints f "
                "JOIN documents d USING (doc) ORDER BY ALL").fetchall():
            rows.setdefault(path, []).append((h, pos))
        shared = sorted(con.execute("SELECT hash, df FROM shared_hashes").fetchall())
        meta = dict(con.execute("SELECT key, value FROM meta WHERE key IN ('distinct_hashes', 'default_max_df')")
                    .fetchall())
        return {"rows": rows, "shared": shared, "meta": meta}
    finally:
        con.close()


def test_an_add_stopped_between_buckets_is_invisible_and_finished_by_the_next(tmp_path, monkeypatch):
    corpus = _corpus(tmp_path / "corpus")
    ref = tmp_path / "ref.duckdb"
    with winnowdb.open(ref) as idx:
        assert idx.add([corpus], jobs=1).added == 40
        ref_pairs = idx.pairs(top=0)
    assert ref_pairs, "no copies found: the test would check nothing"
    monkeypatch.setattr(buckets, "SPAN_ROWS", 1)  # a bucket per transaction, as a big add stores them

    db = tmp_path / "stopped.duckdb"
    stored = []
    insert_part = runs.insert_part

    calls = []

    def stop_at_the_third_bucket(store, columns, **options):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # as a Ctrl-C while the buckets are stored
        insert_part(store, columns, **options)
        stored.append(int(columns["hash"].shape[0]))  # committed (the second may be interrupted)

    monkeypatch.setattr(runs, "insert_part", stop_at_the_third_bucket)
    with winnowdb.open(db) as idx:
        summary = idx.add([corpus], jobs=1)
    monkeypatch.setattr(runs, "insert_part", insert_part)
    assert summary.interrupted and 1 <= len(stored) <= 2 and all(stored)

    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT COUNT(*) FROM documents").fetchall()[0][0] == 0
        assert con.execute("SELECT COUNT(*) FROM documents_pending").fetchall()[0][0] == 40
        # the buckets committed before the stop are stored, for pending documents
        assert con.execute("SELECT COUNT(*) FROM fingerprints").fetchall()[0][0] == sum(stored)
    finally:
        con.close()
    report = check_index(db)
    assert report.ok, report.lines()  # rows of pending documents are not orphans
    with winnowdb.open(db) as idx:  # and no read sees them
        assert idx.pairs(top=0) == []
        assert idx.query(corpus / "essay04.txt") == []
        assert idx.stats()["documents"] == 0

    with winnowdb.open(db) as idx:  # the next add drops them and stores everything once
        again = idx.add([corpus], jobs=1)
        assert again.unchanged == 40
        assert idx.pairs(top=0) == ref_pairs
    assert _content(db) == _content(ref)
    assert check_index(db).ok


def test_pending_documents_count_toward_df_as_when_they_were_added(tmp_path, monkeypatch):
    """``fold_pending`` counts a pending document's hashes as the add that committed it decided
    (from each hash's first row, or when stored if it was huge then), not by what is huge when it
    folds: with ``HUGE_CHARS`` lowered in between (a newer version), the essays fingerprinted in
    segments must still count toward the statistics, as in an uninterrupted add."""
    from winnowdb.ingest import segmented

    corpus = _corpus(tmp_path / "corpus")
    ref = tmp_path / "ref.duckdb"
    with winnowdb.open(ref) as idx:
        idx.add([corpus], jobs=1)
    db = tmp_path / "stopped.duckdb"
    insert_part = runs.insert_part

    def stop(store, columns, **options):
        raise KeyboardInterrupt  # before any bucket is stored: every document stays pending

    monkeypatch.setattr(runs, "insert_part", stop)
    with winnowdb.open(db) as idx:
        assert idx.add([corpus], jobs=1).interrupted
    monkeypatch.setattr(runs, "insert_part", insert_part)
    longest = max(len(p.read_text()) for p in corpus.iterdir())
    monkeypatch.setattr(segmented, "HUGE_CHARS", longest // 4)  # every essay is huge now
    with winnowdb.open(db) as idx:
        assert idx.add([corpus], jobs=1).unchanged == 40
    got, want = _content(db), _content(ref)
    assert got["rows"] == want["rows"]  # fingerprinted in segments: the same rows
    assert want["shared"] and got["shared"] == want["shared"]
    assert got["meta"] == want["meta"]
    assert check_index(db).ok


def test_a_compact_append_fills_its_row_groups(tmp_path):
    # A big run appends with one DuckDB thread: each span's rows fill whole row groups but the
    # last one (with several threads each thread leaves one part-filled: 152 here on 2 cores).
    import numpy as np

    from winnowdb.store.layout import ROW_GROUP_ROWS

    rng = np.random.default_rng(0)
    n = 600_000
    with winnowdb.open(tmp_path / "compact.duckdb") as idx:
        for span in range(2):
            hashes = np.sort(rng.integers(span * 2**60, (span + 1) * 2**60, n))
            runs.insert_part(idx.store, {"hash": hashes, "doc": rng.integers(0, 1000, n).astype(np.int32),
                                         "pos": rng.integers(0, 5000, n).astype(np.int32)}, compact=True)
        groups, rows = idx.store.connection.execute(
            "SELECT count(DISTINCT row_group_id), (SELECT count(*) FROM fingerprints) "
            "FROM pragma_storage_info('fingerprints')").fetchone()
    assert rows == 2 * n
    assert groups == 2 * -(-n // ROW_GROUP_ROWS)  # 2 x 74


def test_spans_are_stored_by_two_connections_with_the_same_result(tmp_path, monkeypatch):
    # With several spans, every other one is stored by a second connection in a thread of its own
    # (two DuckDB appends at once): the index must be the one an add of a single span makes.
    import threading

    corpus = _corpus(tmp_path / "corpus")
    ref = tmp_path / "ref.duckdb"
    with winnowdb.open(ref) as idx:
        idx.add([corpus], jobs=1)
        ref_pairs = idx.pairs(top=0)
    assert ref_pairs

    monkeypatch.setattr(buckets, "SPAN_ROWS", 1)  # a bucket per span: 64 spans
    seen: list[tuple[int, str]] = []
    insert_part = runs.insert_part

    def recorded(store, columns, **options):
        seen.append((id(store.connection), threading.current_thread().name))
        insert_part(store, columns, **options)

    monkeypatch.setattr(runs, "insert_part", recorded)
    db = tmp_path / "lanes.duckdb"
    with winnowdb.open(db) as idx:
        assert idx.add([corpus], jobs=1).added == 40
        assert idx.pairs(top=0) == ref_pairs
    assert len(seen) > 10
    assert len({con for con, _ in seen}) == 2  # two connections
    assert {name.startswith("winnowdb-store") for _, name in seen} == {True, False}  # two threads
    assert _content(db) == _content(ref)
    assert check_index(db).ok


def test_a_failed_store_on_the_second_connection_leaves_the_add_to_the_next(tmp_path, monkeypatch):
    import threading

    import pytest

    corpus = _corpus(tmp_path / "corpus")
    ref = tmp_path / "ref.duckdb"
    with winnowdb.open(ref) as idx:
        idx.add([corpus], jobs=1)
    monkeypatch.setattr(buckets, "SPAN_ROWS", 1)
    insert_part = runs.insert_part
    failed = []

    def fails_in_the_lane(store, columns, **options):
        if threading.current_thread().name.startswith("winnowdb-store") and not failed:
            failed.append(True)
            raise OSError("disk full")
        insert_part(store, columns, **options)

    monkeypatch.setattr(runs, "insert_part", fails_in_the_lane)
    db = tmp_path / "failed.duckdb"
    with winnowdb.open(db) as idx:
        with pytest.raises(OSError, match="disk full"):
            idx.add([corpus], jobs=1)
    assert failed
    monkeypatch.setattr(runs, "insert_part", insert_part)
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT COUNT(*) FROM documents").fetchall()[0][0] == 0
        assert con.execute("SELECT COUNT(*) FROM documents_pending").fetchall()[0][0] == 40
    finally:
        con.close()
    with winnowdb.open(db) as idx:
        assert idx.add([corpus], jobs=1).unchanged == 40
    assert _content(db) == _content(ref)
    assert check_index(db).ok


def test_ctrl_c_while_the_second_connection_stores_interrupts_it(tmp_path, monkeypatch):
    # a Ctrl-C in the main thread while the lane appends: the lane's statement is interrupted
    # (a long one here stands for a slow append), not waited out, and the add ends interrupted
    import threading

    corpus = _corpus(tmp_path / "corpus")
    monkeypatch.setattr(buckets, "SPAN_ROWS", 1)
    insert_part = runs.insert_part
    lane_started = threading.Event()
    outcome: list[str] = []
    main_calls: list[int] = []

    def slow_lane(store, columns, **options):
        if threading.current_thread().name.startswith("winnowdb-store"):
            lane_started.set()
            try:
                # ~40 s on one thread here: long enough to be seen waited out, never a hang
                store.connection.execute("SELECT sum(hash(range) % 7) FROM range(10000000000) a")
                outcome.append("finished")
            except BaseException as exc:
                outcome.append(type(exc).__name__)
                raise
            return
        main_calls.append(1)
        if len(main_calls) == 2:  # the lane has the span between: a Ctrl-C once it is busy
            assert lane_started.wait(60)
            raise KeyboardInterrupt
        insert_part(store, columns, **options)

    monkeypatch.setattr(runs, "insert_part", slow_lane)
    with winnowdb.open(tmp_path / "stopped.duckdb") as idx:
        summary = idx.add([corpus], jobs=1)
    assert summary.interrupted
    assert outcome and outcome[0] != "finished"  # interrupted, not waited out
    monkeypatch.setattr(runs, "insert_part", insert_part)
    with winnowdb.open(tmp_path / "stopped.duckdb") as idx:  # the next add finishes the job
        assert idx.add([corpus], jobs=1).unchanged == 40
    assert check_index(tmp_path / "stopped.duckdb").ok
