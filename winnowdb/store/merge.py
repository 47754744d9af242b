"""Merging fingerprint runs: the fingerprints table rewritten as one run ordered by hash.

Every add (and every upgrade step that fingerprints documents again) appends its rows as a *run*
ordered by hash (``runs``). A lookup reads, in every run, the row groups that can hold its
hashes: a query of a few hundred hashes reads about one row group per hash in one big run, and
as many again in every other big run, so an index built by many adds answers more slowly than
the same index built at once. The runs stored since the last merge are kept in the meta entry
``fingerprint_runs`` (their row counts, oldest first; ``record_run``), and ``merge_due`` weighs
them: a run costs a query at most one row group per looked-up hash (``QUERY_HASHES``) and at most
its own row groups; once the runs together cost more than ``MERGE_FACTOR`` times what one run
would, the add that made them merges them (``merge``). An index whose runs are not recorded
(written before this was kept) is merged by ``winnowdb upgrade``, which gives it, and its
shared_hashes (``rewrite_shared_hashes``), the row groups of this version (``dbfile.row_group_rows``).

``merge`` rewrites the table in place, a bucket of hashes (``buckets``) at a time: one
transaction copies the bucket's rows aside in order (a temporary table), deletes them and appends
them again, and a checkpoint then frees the row groups they left, which later buckets fill. After
the last bucket the table holds the buckets in order, each ordered by hash: one run. Memory stays
bounded (one bucket, and DuckDB's cache held to ``MERGE_MEMORY_MB``) and the file grows little
(100,000 documents: 744 MB before, 743 after; 1,000,000: 7.44 GB, 7.84 after), where a copy of
the whole table would have doubled the fingerprints' share of it. Every commit leaves the same rows, only
reordered, so an interrupted merge leaves a correct index, merged in part (its runs stay recorded
as they were, and the next add merges them again).
"""
from __future__ import annotations

import math
import time
from typing import Callable

from . import sqlfiles
from .buckets import BUCKETS, hash_range
from .dbfile import ROW_GROUP_ROWS, memory_bytes
from .schema import RUNS_KEY, read_meta, write_meta

__all__ = ["QUERY_HASHES", "MERGE_FACTOR", "MERGE_MEMORY_MB", "runs_of", "recorded_runs", "record_run", "merge_due",
           "merge", "unrecorded", "rewrite_shared_hashes"]

#: how many hashes a typical query looks up (a 2.7 KB document has ~400 fingerprints)
QUERY_HASHES = 400
#: merge once the runs cost a lookup more than this many times one run's row groups
MERGE_FACTOR = 3
#: DuckDB's memory limit while it merges (its cache of the blocks read; one bucket is far less)
MERGE_MEMORY_MB = 512


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
    value = read_meta(con).get(RUNS_KEY)
    if value is None:
        return None
    return [int(x) for x in value.split(",") if x]


def record_run(store, rows: int) -> None:
    """Note a run of ``rows`` rows just stored (call inside the transaction that makes its
    documents visible). An index that does not record its runs (written before they were, in
    DuckDB's default row groups) is left so until ``winnowdb upgrade`` rewrites it."""
    runs = runs_of(store)
    if rows <= 0 or runs is None:
        return
    write_meta(store.connection, RUNS_KEY, ",".join(str(r) for r in [*runs, rows]))


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


def merge(store, on_bucket: Callable[[int, int], None] | None = None) -> float:
    """Rewrite the fingerprints table as one run ordered by hash, in the row groups of this
    attachment (``dbfile.row_group_rows``); the seconds it took. ``on_bucket(done, of)`` after each bucket."""
    t0 = time.perf_counter()
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


def _rewrite(store, table: str, on_bucket: Callable[[int, int], None] | None) -> None:
    """``table`` rewritten in place, a bucket of hashes per transaction (the module docstring):
    its rows copied aside in order (``sql/<table>_of_bucket.sql``), deleted and appended again."""
    import duckdb

    now = memory_bytes(str(store.value("memory_limit_now")))
    limit = MERGE_MEMORY_MB * 2**20 if now is None else min(now, MERGE_MEMORY_MB * 2**20)
    with store.setting_for_block("memory_limit", f"{limit}B", reset=True):
        for p in range(BUCKETS):
            low, high = hash_range(p)
            with store.transaction():
                store.temp_table("merging_bucket", f"{table}_of_bucket", low=low, high=high)
                store.run(f"{table}_bucket_delete", low=low, high=high)
                store.run(f"{table}_bucket_append")
                store.drop_temp("merging_bucket")
            try:
                store.run("checkpoint")  # frees the row groups the bucket left, for the next ones
            except duckdb.Error:  # another connection of this process is inside a transaction
                pass
            if on_bucket is not None:
                on_bucket(p + 1, BUCKETS)
