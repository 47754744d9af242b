"""An add's fingerprints: collected as documents are prepared, stored once at the end, ordered by hash.

Looking a hash up (``query``, and every statistic kept per hash) must read few of the table's
row groups, so each add stores its fingerprint rows ordered by hash: a *run*, whose row groups
each hold a narrow range of hashes (DuckDB's zone maps then skip the others). Rows arrive in
document order (or already grouped by bucket, as an add's workers send them: ``add_bucketed``),
and ``FingerprintRun`` sorts them into ranges of hashes as they come (``buckets``:
ranges that hold about equal numbers of winnowed hashes), spilling the buckets to a folder next to
the index beyond ``SPILL_ROWS``, so memory stays bounded; ``finish`` writes the buckets in order,
each sorted by a 16-bit key of its range: the run is ordered by hash down to ranges narrower than
a row group's, all a zone map needs.

``finish`` stores the buckets a span of consecutive buckets at a time (``buckets.spans``: about
half a million rows each, so a small add's are one span), each in a transaction of its own
(DuckDB keeps a transaction's appended rows in memory until it commits: one transaction for a
whole add's rows made ``add``'s peak memory grow with the add). With several spans, every other
span is stored by a second connection in a thread of its own, each append with one DuckDB
thread: two appends at once keep both cores busy, and single-threaded appends fill their row
groups (``insert_rows``). Those rows belong to documents
still in ``documents_pending``, which no read sees. As each span is stored, what it adds to the
statistics is counted from its rows in memory (``stats.Update.tally``, kept in the spill folder by
a big add). Then one transaction moves the documents the add committed into ``documents``
(replacing older versions of the same files) and brings the statistics up to date from those
tallies (``stats``): the rows are never read back. An add that is interrupted before that
leaves its documents pending, with their texts (and maybe some of their rows); ``fold_pending``
drops those rows and fingerprints the documents again from their texts, so nothing committed is
lost and nothing half-stored is ever read.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import merge, purge, removal, sqlfiles, stats
from .buckets import BUCKETS, bucket_of, sort_key, spans
from .interrupts import is_interrupt
from .room import room_for_deletes
from .spill import spill_folder
from .tallies import Tallies

__all__ = ["FingerprintRun", "RunResult", "insert_rows", "insert_part", "index_pending", "drop_pending_rows",
           "COLUMNS", "SPILL_ROWS", "COMPACT_ROWS"]

#: the columns of a fingerprint row, in the fingerprints table's order, with their dtypes
COLUMNS = (("hash", np.int64), ("doc", np.int32), ("pos", np.int32))
#: rows held in memory before the buckets are written to the spill folder
SPILL_ROWS = 4_000_000
_N = BUCKETS


@dataclass
class RunResult:
    """What ``finish`` stored."""

    rows: int = 0
    documents: int = 0
    replaced: int = 0
    merged_seconds: float = 0.0  # the merge of the runs it made due (0: none)
    merge_interrupted: bool = False  # Ctrl-C stopped that merge: everything stored, merged in part


class FingerprintRun:
    """The fingerprint rows of one add (or one upgrade step), bucketed by hash until ``finish``.

    ``add(columns, first)``: rows as numpy columns (``COLUMNS``); ``first`` marks each document's
    first row of a hash (a document's distinct hashes), which the statistics count.
    ``add_bucketed``: the same, already grouped by bucket. Use as a context manager: the spill
    folder is removed however the block ends.
    """

    def __init__(self, store) -> None:
        self.store = store
        self._parts: list[list[dict]] = [[] for _ in range(_N)]
        self._buffered = 0
        self._spill: str | None = None
        self._spilled = [0] * _N
        self.rows = 0

    @property
    def spilled_rows(self) -> int:
        """Rows written to the spill folder so far (they are read back when the run is stored)."""
        return sum(self._spilled)

    # ------------------------------------------------------------------ collecting
    def add(self, columns: dict, first: np.ndarray) -> None:
        n = int(columns["hash"].shape[0])
        if n == 0:
            return
        h = np.asarray(columns["hash"], dtype=np.int64)
        part = bucket_of(h)
        order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[order], np.arange(_N + 1))
        cols: dict[str, np.ndarray] = {name: np.asarray(columns[name], dtype=dtype)[order] for name, dtype in COLUMNS}
        cols["first"] = np.asarray(first, dtype=np.bool_)[order]
        self.add_bucketed(cols, bounds)

    def add_bucketed(self, columns: dict, bounds: np.ndarray) -> None:
        """``add`` of rows already ordered by bucket (``COLUMNS`` and ``first``, bucket p's rows
        at ``bounds[p]:bounds[p + 1]``), as ``ingest.rows`` groups them where they are
        fingerprinted. Within a bucket any order will do: ``finish`` sorts each by hash."""
        n = int(columns["hash"].shape[0])
        if n == 0:
            return
        cols = {name: np.asarray(columns[name], dtype=dtype) for name, dtype in (*COLUMNS, ("first", np.bool_))}
        b = np.asarray(bounds).tolist()
        for p in range(_N):
            if b[p + 1] > b[p]:
                self._parts[p].append({k: v[b[p]:b[p + 1]] for k, v in cols.items()})
        self._buffered += n
        self.rows += n
        if self._buffered >= SPILL_ROWS:
            self._write_spill()

    def _write_spill(self) -> None:
        if self._spill is None:
            self._spill = spill_folder(self.store.path)
        for p, chunks in enumerate(self._parts):
            if not chunks:
                continue
            for name in (*(c for c, _ in COLUMNS), "first"):
                with open(os.path.join(self._spill, f"{p:02d}.{name}"), "ab") as fh:
                    for chunk in chunks:
                        chunk[name].tofile(fh)
            self._spilled[p] += sum(int(c["hash"].shape[0]) for c in chunks)
            self._parts[p] = []
        self._buffered = 0

    def _partition(self, p: int, keep: "_DocSet") -> dict:
        """Every row of bucket ``p`` (spilled and buffered) whose document is in ``keep``, ordered
        by hash (``buckets.sort_key``)."""
        pieces = []
        if self._spilled[p]:
            assert self._spill is not None  # made by the first _write_spill
            pieces.append({name: np.fromfile(os.path.join(self._spill, f"{p:02d}.{name}"), dtype=dtype)
                           for name, dtype in (*COLUMNS, ("first", np.bool_))})
        pieces.extend(self._parts[p])
        self._parts[p] = []
        if not pieces:
            return {}
        cols = {k: np.concatenate([x[k] for x in pieces]) if len(pieces) > 1 else pieces[0][k] for k in pieces[0]}
        kept = keep.contains(cols["doc"])
        if not kept.all():  # rows of a document the add never committed (interrupted while huge)
            cols = {k: v[kept] for k, v in cols.items()}
        order = np.argsort(sort_key(cols["hash"], p), kind="stable")
        return {k: v[order] for k, v in cols.items()}

    def _span(self, span: tuple[int, int], keep: "_DocSet") -> dict:
        """``_partition`` of each bucket of a span (first, last), one after the other: ordered by
        hash as well, as the buckets are consecutive ranges."""
        parts = [part for part in (self._partition(p, keep) for p in range(span[0], span[1] + 1)) if part]
        if len(parts) <= 1:
            return parts[0] if parts else {}
        return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}

    # ------------------------------------------------------------------ storing
    def finish(self, *, pending: bool = True, rewritten: dict | None = None,
               on_merge: Callable[[int, int], None] | None = None, merge_stops: bool = False) -> RunResult:
        """Store the rows, then index the documents they belong to and bring the statistics up to date.

        ``pending``: the documents are this add's rows of ``documents_pending``. Their rows are
        stored a span of buckets at a time, each span its own transaction (``insert_part``), so
        DuckDB never holds a whole add's rows in memory waiting for one commit; rows of pending documents
        are seen by no read (every read joins ``documents``). Then one transaction moves the
        documents into ``documents`` (an older version of the same file, named by ``replaces``,
        is removed) and updates the statistics. A kill in between leaves the documents pending
        with some of their rows stored: ``drop_pending_rows`` (``fold_pending``, the next write)
        deletes those rows before it fingerprints the documents again.
        ``rewritten`` (``upgrade``, ``pending`` False): the documents keep their ids and rows;
        their old fingerprints are replaced and ``rewritten`` (numpy columns doc, normalizer,
        normalized_hash, units, fingerprints, hashes) updates their rows, all in one transaction.
        Either way the run is recorded (``merge.record_run``), and when the runs stored since the
        last merge cost lookups too much, they are merged (the newest alone when that is enough:
        ``merge.merge_from``; ``on_merge(done,
        of)`` after each bucket merged; ``RunResult.merged_seconds``). ``merge_stops``: a Ctrl-C
        during that merge stops the merge alone (``RunResult.merge_interrupted``), as everything
        else is stored by then; else it is raised, as anywhere else.
        """
        store = self.store
        result = RunResult(rows=self.rows)
        try:
            if pending:
                self._finish_pending(result)
            else:
                assert rewritten is not None  # given whenever pending is False (upgrade)
                self._finish_rewritten(rewritten)
        finally:
            self.close()
        store.refresh_settings()
        purge.purge(store)  # the rows of the older versions replaced, where their removal deferred them
        first_run = merge.merge_from(merge.recorded_run_docs(store.connection))
        if first_run is not None:
            # everything is stored and counted by now: a Ctrl-C stops the merge alone, which
            # leaves the index correct and merged in part (the next add merges again)
            t0 = time.perf_counter()
            try:
                result.merged_seconds = merge.merge(store, on_merge, first_run=first_run)
            except BaseException as exc:
                if not (merge_stops and is_interrupt(exc)):
                    raise
                result.merge_interrupted = True
                result.merged_seconds = time.perf_counter() - t0
        return result

    def _finish_pending(self, result: RunResult) -> None:
        store = self.store
        docs = store.columns("pending_documents")
        keep = _DocSet(docs["doc"])
        counted_later = _DocSet(docs["doc"][docs["hashes"] < 0])  # huge: no first-of-hash mask
        # what each span adds to the statistics is counted from its rows as they are stored, and
        # applied when the documents are indexed: their rows are never read back
        update = stats.Update(store, docs["doc"].astype(np.int32),
                              replaced=docs["replaces"][docs["replaces"] >= 0].astype(np.int32), rewritten=False)
        update.before()
        tallies = Tallies(self._spill)
        stored_rows = 0

        def prepared(span: tuple[int, int]) -> tuple[dict, stats.Tally | None]:
            """A span's rows, ordered by hash, and their tally (numpy only: run in a thread)."""
            part = self._span(span, keep)
            if not part or not part["hash"].shape[0]:
                return part, None
            counts = part["first"] | counted_later.contains(part["doc"])
            return part, update.tally({"hash": part["hash"], "doc": part["doc"], "first": counts})

        # the next span is read, sorted and tallied (numpy, which lets go of the GIL) in a thread
        # while DuckDB stores this one; with several spans, every other span is stored by a second
        # connection in a thread of its own (the lane), each with one DuckDB thread: three
        # spans in memory at most
        from concurrent.futures import Future, ThreadPoolExecutor
        from concurrent.futures import wait as futures_wait

        todo = spans(self.rows)
        with contextlib.ExitStack() as stack:
            ahead = stack.enter_context(ThreadPoolExecutor(1, thread_name_prefix="winnowdb-bucket"))
            lane, lane_store = None, None
            lane_busy: Future | None = None  # the lane's append under way
            if len(todo) > 1:
                stack.enter_context(store.threads(1))
                lane_store = stack.enter_context(store.second_connection())
                lane = stack.enter_context(ThreadPoolExecutor(1, thread_name_prefix="winnowdb-store"))

                def stop_lane(kind, *_) -> None:
                    """Leaving by an error or Ctrl-C: the lane's append is interrupted (its
                    transaction rolls back) before it is waited for and its connection closed;
                    again until it ends, as an interrupt before its statement starts is lost."""
                    while kind is not None and lane_busy is not None and not lane_busy.done():
                        lane_store.interrupt()
                        futures_wait([lane_busy], timeout=0.05)

                stack.push(stop_lane)
            coming = ahead.submit(prepared, todo[0])
            for i, span in enumerate(todo):
                part, tally = coming.result()
                if i + 1 < len(todo):
                    coming = ahead.submit(prepared, todo[i + 1])
                if tally is not None:
                    rows = {name: part[name] for name, _ in COLUMNS}
                    if lane is not None and i % 2:
                        if lane_busy is not None:
                            lane_busy.result()  # its last span stored (or its error raised here)
                        lane_busy = lane.submit(insert_part, lane_store, rows)
                    else:
                        insert_part(store, rows)  # (one span alone: both DuckDB threads)
                    stored_rows += int(part["hash"].shape[0])
                    tallies.put(span, tally)
                del part, tally
            if lane_busy is not None:
                lane_busy.result()
        indexed = index_pending(store, update, tallies, run_rows=stored_rows)
        result.documents, result.replaced = indexed.documents, indexed.replaced

    def _finish_rewritten(self, rewritten: dict) -> None:
        store = self.store
        with room_for_deletes(store), store.transaction() as con:
            new_docs = np.asarray(rewritten["doc"], dtype=np.int32)
            update = stats.Update(store, new_docs, replaced=np.empty(0, np.int32), rewritten=True)
            update.before()
            removal.remove_rows(store, new_docs, rewritten=True)
            with store.relations(rewritten_documents=rewritten):
                con.execute(sqlfiles.load("rewritten_documents_update"))
            keep = _DocSet(new_docs)
            stored_rows = 0
            for span in spans(self.rows):
                part = self._span(span, keep)
                if part and part["hash"].shape[0]:
                    update.partition(span, part)
                    insert_rows(store, {name: part[name] for name, _ in COLUMNS}, compact=self.rows >= COMPACT_ROWS)
                    stored_rows += int(part["hash"].shape[0])
                    update.stored(span)
            update.after()
            # no first document recorded: the documents keep their ids, which are older runs' too,
            # so no merge of the newest runs alone may take this one (merge.merge_from)
            merge.record_run(store, stored_rows)

    def close(self) -> None:
        if self._spill is not None:
            shutil.rmtree(self._spill, ignore_errors=True)
            self._spill = None
        self._parts = [[] for _ in range(_N)]

    def __enter__(self) -> "FingerprintRun":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def index_pending(store, update: stats.Update, tallies: "Tallies", run_rows: int = 0) -> RunResult:
    """One transaction: the pending documents, whose rows of the spans in ``tallies`` are stored,
    become indexed documents (replacing the older versions of their files), and the statistics
    count their rows. ``update`` is the statistics' update of the pending documents (``before``
    called); ``tallies`` holds each stored span's ``Update.tally`` (``buckets.spans``: first,
    last). ``run_rows``: how many rows the run stored (recorded for ``merge``)."""
    result = RunResult()
    # the statistics replace shared_hashes rows anywhere in the table, and the documents replaced
    # lose their rows: room in memory for what those deletes pin until the commit
    with room_for_deletes(store, {"documents_pending": None}), store.transaction() as con:
        result.documents = int(update.new_docs.shape[0])  # the pending documents, read by the caller
        result.replaced = int(update.replaced.shape[0])
        update.text_gone = removal.remove_rows(store, update.replaced)
        for span in tallies.spans():  # while the documents are pending, their rows do not count
            update.apply(span, tallies.get(span))
        con.execute(sqlfiles.load("pending_documents_move"))
        for span in tallies.spans():
            update.stored(span)
        update.after()
        merge.record_run(store, run_rows, int(update.new_docs.min()) if update.new_docs.shape[0] else None)
    return result


#: a run of at least this many rows is appended with one DuckDB thread (``insert_rows``)
COMPACT_ROWS = 16_000_000


def insert_rows(store, columns: dict, *, compact: bool = False) -> None:
    """Append fingerprint rows (numpy columns, ``COLUMNS``) inside the caller's transaction;
    with one DuckDB thread when ``compact``.

    Numpy columns, not an Arrow table: an Arrow table made DuckDB import pandas (~0.25 s and
    ~65-130 MB), and appended no faster. DuckDB's threads append numpy columns to row groups of
    their own, and each append leaves their last ones part-filled: at 100,000 documents 5,158
    row groups where 4,980 hold the rows (a 7% larger file), at 1,000,000 an index of 6.7 GB
    instead of 5.6 GB. An add of several spans appends them on two connections at once, each with
    one thread (``FingerprintRun.finish``); on one connection (an upgrade's rewrite), a big run
    (``COMPACT_ROWS``) appends with one thread while the other core reads and sorts the next span
    (bench/RESULTS.md, Ingest)."""
    with store.threads(1) if compact else contextlib.nullcontext():
        with store.relations(new_fingerprints=columns):
            store.connection.execute(sqlfiles.load("insert_fingerprints"))


def insert_part(store, columns: dict, *, compact: bool = False) -> None:
    """Store one span of buckets of an add's fingerprint rows (numpy columns, ``COLUMNS``), in a
    transaction of its own (``insert_rows``); the rows belong to documents still pending."""
    with store.transaction():
        insert_rows(store, columns, compact=compact)


def drop_pending_rows(store) -> None:
    """Delete, in a transaction of its own, the fingerprint rows of pending documents: the
    buckets an add stored before it was killed (``FingerprintRun.finish``). Nothing reads them."""
    with room_for_deletes(store, {"fingerprints": None}), store.transaction() as con:
        con.execute(sqlfiles.load("delete_pending_fingerprints"))


class _DocSet:
    """A set of document ids, tested against whole columns at once (ids are nearly dense)."""

    def __init__(self, docs: np.ndarray) -> None:
        docs = np.asarray(docs, dtype=np.int64)
        self.lo = int(docs.min()) if docs.size else 0
        self.table = np.zeros((int(docs.max()) - self.lo + 1) if docs.size else 0, dtype=np.bool_)
        self.table[docs - self.lo] = True

    def contains(self, doc: np.ndarray) -> np.ndarray:
        i = doc.astype(np.int64) - self.lo
        inside = (i >= 0) & (i < self.table.shape[0])
        out = np.zeros(doc.shape[0], dtype=np.bool_)
        out[inside] = self.table[i[inside]]
        return out
