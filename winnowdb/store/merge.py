"""Merging fingerprint runs: the fingerprints table rewritten as one run ordered by hash.

Every add (and every upgrade step that fingerprints documents again) appends its rows as a *run*
ordered by hash (``runs``). A lookup reads, in every run, the row groups that can hold its
hashes: a query of a few hundred hashes reads about one row group per hash in one big run, and
as many again in every other big run, so an index built by many adds answers more slowly than
the same index built at once. The runs stored since the last merge are kept in the meta entry
``fingerprint_runs`` (their row counts, oldest first; ``record_run``), and ``merge_due`` weighs
them: a run costs a query at most one row group per looked-up hash (``QUERY_HASHES``) and at most
its own row groups; once the runs together cost more than ``MERGE_FACTOR`` times what one run
would, the add that made them merges them (``merge``): the newest runs alone when merging them
is enough (``merge_from``: an archive that grows a year at a time rewrites its new years, not its
past), else all of them. Each run records the smallest document id among its rows, and the
newest runs are those documents' rows from that id up. An index whose runs are not recorded
(written before this was kept) is merged by ``winnowdb upgrade``, which gives it, and its
shared_hashes (``rewrite_shared_hashes``), the row groups of this version (``layout.row_group_rows``).

``merge`` rewrites the table in place, a bucket of hashes (``buckets``) at a time: one
transaction copies the bucket's rows aside (a temporary table), deletes them and appends them
again ordered by hash, and a checkpoint (once ``CHECKPOINT_ROWS`` rows are rewritten) then frees
the row groups they left, which later buckets fill. After the last bucket the table holds the
buckets in order, each ordered by hash: one run. Memory stays bounded (one bucket, and DuckDB's
cache held to ``MERGE_MEMORY_MB``) and the file grows less than a copy of the whole table would
(100,000 documents grown by two new years: 0.69 GB before, 0.72 after; 1,000,000: 5.75 GB, 6.29
after). Every commit leaves the same rows, only reordered, so an interrupted merge leaves a
correct index, merged in part (its runs stay recorded as they were, and the next add merges them
again).
"""
from __future__ import annotations

import contextlib
import math
import time
from typing import Callable

from . import sqlfiles
from .buckets import BUCKETS, hash_range
from .layout import ROW_GROUP_ROWS
from .limits import memory_bytes
from .schema import RUNS_KEY, read_meta, write_meta

__all__ = ["QUERY_HASHES", "MERGE_FACTOR", "MERGE_MEMORY_MB", "CHECKPOINT_ROWS", "runs_of", "recorded_runs",
           "recorded_run_docs", "record_run", "merge_due", "merge_from", "merge", "unrecorded", "rewrite_shared_hashes"]

#: how many hashes a typical query looks up (a 2.7 KB document has ~400 fingerprints)
QUERY_HASHES = 400
#: merge once the runs cost a lookup more than this many times one run's row groups
MERGE_FACTOR = 3
#: DuckDB's memory limit while it merges (its cache of the blocks read; one bucket is far less)
MERGE_MEMORY_MB = 512
#: a merge checkpoints once it has rewritten this many rows since the last checkpoint (and at its
#: end): the checkpoint frees the row groups the rows left, for the next buckets, and what their
#: deletes pin (store/room.py: ~190 MB for 4M rows in 8,192-row groups). A checkpoint after every
#: bucket cost a merge of the 8.1M rows of two new years at 1,000,000 documents 64 checkpoints of
#: the whole file's metadata, ~5.7 s of its ~6.5 s
CHECKPOINT_ROWS = 4_000_000


def unrecorded(con) -> bool:
    """Whether the index (a DuckDB connection to it) holds fingerprints but no record of their
    runs: written by a winnowdb before runs were recorded, in DuckDB's default row groups
    (``winnowdb upgrade`` rewrites it)."""
    return recorded_runs(con) is None and bool(con.execute(sqlfiles.load("fingerprint_rows_total")).fetchall()[0][0])


def runs_of(store) -> list[int] | None:
    """The row counts of the runs stored since the last merge, oldest first; None when the index
    does not record them (written by an earlier winnowdb, in DuckDB's default row groups)."""
    return recorded_runs(store.connection)


def recorded_runs(con) -> list[int] | None:
    """``runs_of`` on a DuckDB connection to the index."""
    runs = recorded_run_docs(con)
    return None if runs is None else [rows for rows, _ in runs]


def recorded_run_docs(con) -> list[tuple[int, int | None]] | None:
    """The runs stored since the last merge, oldest first, each as (rows, the smallest document
    id among its rows: None where not recorded); None when the index does not record its runs.
    Stored in meta as ``rows@doc`` (or ``rows``, as a winnowdb before partial merges wrote it)."""
    value = read_meta(con).get(RUNS_KEY)
    if value is None:
        return None
    out: list[tuple[int, int | None]] = []
    for item in value.split(","):
        if item:
            rows, _, doc = item.partition("@")
            out.append((int(rows), int(doc) if doc else None))
    return out


def _write_runs(con, runs: list[tuple[int, int | None]]) -> None:
    write_meta(con, RUNS_KEY, ",".join(str(r) if d is None else f"{r}@{d}" for r, d in runs))


def record_run(store, rows: int, first_doc: int | None = None) -> None:
    """Note a run of ``rows`` rows just stored, ``first_doc`` the smallest document id among them
    (call inside the transaction that makes its documents visible). An index that does not record
    its runs (written before they were, in DuckDB's default row groups) is left so until
    ``winnowdb upgrade`` rewrites it."""
    runs = recorded_run_docs(store.connection)
    if rows <= 0 or runs is None:
        return
    _write_runs(store.connection, [*runs, (int(rows), None if first_doc is None else int(first_doc))])


def _cost(rows: int) -> int:
    """The row groups of a run of ``rows`` rows that a lookup of ``QUERY_HASHES`` hashes reads, at most
    (counted in groups of ``ROW_GROUP_ROWS``: a larger index's groups are larger, and its runs
    are then weighed a little heavier than they cost; the rule stays a rule of thumb)."""
    return min(math.ceil(rows / ROW_GROUP_ROWS), QUERY_HASHES)


def merge_due(runs: list[int] | None) -> bool:
    """Whether runs of these sizes cost a lookup more than ``MERGE_FACTOR`` times one run would
    (a run of their total size), so that merging them pays."""
    if not runs or len(runs) < 2:
        return False
    return sum(_cost(r) for r in runs) > MERGE_FACTOR * _cost(sum(runs))


def merge_from(runs: list[tuple[int, int | None]] | None) -> int | None:
    """Which runs a due merge rewrites: the index of the first (0: all of them, into one run), or
    None when no merge is due (``merge_due``).

    The newest runs alone are merged when that is enough: the smallest suffix of two or more runs
    whose merge leaves the runs costing a lookup at most ``MERGE_FACTOR - 1`` times one run (room
    for the next add before the next merge), if it rewrites at most half of the rows and every
    run in it records its smallest document (its rows are then those of documents from that id
    up: ``merge``). Otherwise all. An archive that grows by a year at a time thus rewrites its
    new years, not the past ones: at 1,000,000 documents a merge of everything takes ~50 s, one
    of the 8.1M rows of two new years ~3 s (bench/RESULTS.md, Scale)."""
    if not runs:
        return None
    sizes = [rows for rows, _ in runs]
    if not merge_due(sizes):
        return None
    total = sum(sizes)
    for first in range(len(runs) - 2, 0, -1):
        tail = sizes[first:]
        if any(doc is None for _, doc in runs[first:]) or 2 * sum(tail) > total:
            break
        if sum(_cost(r) for r in sizes[:first]) + _cost(sum(tail)) <= (MERGE_FACTOR - 1) * _cost(total):
            return first
    return 0


def merge(store, on_bucket: Callable[[int, int], None] | None = None, *, first_run: int = 0) -> float:
    """Rewrite the fingerprints table as one run ordered by hash, in the row groups of this
    attachment (``layout.row_group_rows``); the seconds it took. ``on_bucket(done, of)`` after each
    bucket. ``first_run`` (``merge_from``): merge only the runs from that one on, which hold the
    rows of the documents from their smallest recorded id up: those rows are rewritten as one run
    after the others, which stay as they are (a row of an older run with an id that high moves
    with them: the same rows either way)."""
    t0 = time.perf_counter()
    runs = recorded_run_docs(store.connection) if first_run > 0 else None
    if runs is not None and 0 < first_run < len(runs) - 1 and all(d is not None for _, d in runs[first_run:]):
        tail = runs[first_run:]
        from_doc = min(int(d) for _, d in tail if d is not None)
        moved = _rewrite(store, "fingerprints", on_bucket, from_doc=from_doc)
        with store.transaction() as con:
            _write_runs(con, [*runs[:first_run], (moved, from_doc)])
        return time.perf_counter() - t0
    _rewrite(store, "fingerprints", on_bucket)
    with store.transaction() as con:
        total = int(store.value("fingerprint_rows_total"))
        write_meta(con, RUNS_KEY, str(total) if total else "")
    return time.perf_counter() - t0


def rewrite_shared_hashes(store, on_bucket: Callable[[int, int], None] | None = None) -> float:
    """Rewrite shared_hashes in place in the row groups of this attachment (``upgrade``, for
    an index written in DuckDB's default row groups; every write keeps each bucket's rows together
    and ordered, so only their row groups change); the seconds it took."""
    t0 = time.perf_counter()
    _rewrite(store, "shared_hashes", on_bucket)
    return time.perf_counter() - t0


def _rewrite(store, table: str, on_bucket: Callable[[int, int], None] | None, from_doc: int | None = None) -> int:
    """``table`` rewritten in place, a bucket of hashes per transaction (the module docstring):
    its rows copied aside (``sql/<table>_of_bucket.sql``), deleted and appended again in order.
    ``from_doc`` (fingerprints only): only the rows of the documents from that id up. Returns
    how many rows it rewrote."""
    import duckdb

    store.checkpoint()  # writes what the add left, and lets go of what its deletes pinned
    now = memory_bytes(str(store.value("memory_limit_now")))
    limit = MERGE_MEMORY_MB * 2**20 if now is None else min(now, MERGE_MEMORY_MB * 2**20)
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(store.setting_for_block("memory_limit", f"{limit}B", reset=True))
        except duckdb.Error:  # DuckDB holds more than that, pinned: merge within the limit it has
            pass
        moved = total = 0  # rows rewritten since the last checkpoint, and in all
        for p in range(BUCKETS):
            low, high = hash_range(p)
            with store.transaction():
                if from_doc is None:
                    store.temp_table("merging_bucket", f"{table}_of_bucket", low=low, high=high)
                    gone = store.run(f"{table}_bucket_delete", low=low, high=high).fetchall()
                else:
                    store.temp_table("merging_bucket", f"{table}_of_bucket_from", low=low, high=high, doc=from_doc)
                    gone = store.run(f"{table}_bucket_delete_from", low=low, high=high, doc=from_doc).fetchall()
                store.run(f"{table}_bucket_append")
                store.drop_temp("merging_bucket")
            rows = int(gone[0][0]) if gone and gone[0] else CHECKPOINT_ROWS
            moved, total = moved + rows, total + rows
            if moved >= CHECKPOINT_ROWS or p == BUCKETS - 1:
                moved = 0
                store.checkpoint()  # frees the row groups the buckets left, for the next ones
            if on_bucket is not None:
                on_bucket(p + 1, BUCKETS)
    return total
