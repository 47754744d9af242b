"""Deleting the fingerprint rows of removed documents a span of hash buckets at a time.

DuckDB pins the version info of the rows a transaction deletes until a checkpoint after it ends
(``room``): ~32 KiB per vector and ~256 KiB per row group touched. A document's rows lie all
through the fingerprints table, which is ordered by hash, so removing many documents touches
nearly every vector: 10,000 documents of a 1,000,000-document index pinned ~9 GB in the one
transaction that removed them, and failed with DuckDB's out-of-memory error on this 24 GB
machine's default limit (bench/RESULTS.md, Scale).

A removal whose fingerprint deletes would pin more than half the most its room can raise DuckDB's
limit to (``budget``, ``DEFER_SHARE``) is *deferred* (``deferred``): its transaction removes the
documents, their texts and other rows, and brings the statistics up to date as ever
(``removal``), but records the documents in ``documents_removed`` (``record``) instead of
deleting their fingerprint rows. Every read joins ``documents``, so those rows count nowhere
from that commit on, as a pending document's rows count nowhere. Once it commits, ``purge``
deletes the rows in spans of consecutive hash buckets (``buckets``), each span a transaction
that pins about a quarter of that limit at most (``SPAN_SHARE``), a checkpoint after each
(which writes the deletes and lets go of what they pinned); the last span's transaction forgets
the documents. A removal stopped before that (killed, Ctrl-C, an error) has removed its
documents all the same; the next add or remove purges what is left (``purge`` at its start),
and ``check`` notes it until then. Ids are never given again (``next_doc_id.sql``), so a new
document never owns such a row.
"""
from __future__ import annotations

import math
from typing import Callable

from . import sqlfiles
from .buckets import BUCKETS, span_range
from .room import DeleteRoom, room_for_deletes, weighing_room

__all__ = ["DEFER_SHARE", "SPAN_SHARE", "FALLBACK_LIMIT", "budget", "deferred", "record", "spans_for",
           "pending_rows", "purge", "delete_span"]

#: a removal whose fingerprint deletes would pin more than 1 / DEFER_SHARE of the memory limit
#: deletes them after it commits: 1,000 of 100,000 documents (~1.9 GB, as ``room`` weighs it) are
#: removed in one transaction under this machine's default limit (5.8 GB): in 2.31 s, where a
#: deferred removal took 2.57 s (two spans and their checkpoints; bench/RESULTS.md, Scale)
DEFER_SHARE = 2
#: each span of a deferred removal pins about 1 / SPAN_SHARE of the limit at most: measured at
#: 1,000,000 documents under a 2 GB limit, spans of 1/16 of the table (~0.56 GB pinned) deleted
#: 10,000 documents' 4M rows, peaking at 2.2 GB of process memory; spans of 1/4 (~2.3 GB) failed
SPAN_SHARE = 4
#: the limit assumed where DuckDB's is not a size winnowdb set (``room.DeleteRoom.cap`` is None)
FALLBACK_LIMIT = 4 * 2**30


def budget(room: DeleteRoom, share: int) -> int:
    """A ``share``-th of the most ``room`` can raise DuckDB's memory limit to."""
    return max(1, (FALLBACK_LIMIT if room.cap is None else room.cap) // share)


def deferred(store, rows: int) -> bool:
    """Whether a removal deleting ``rows`` fingerprint rows defers them to ``purge`` (never on a
    read-only or in-memory index)."""
    room = weighing_room(store)
    return room is not None and rows > 0 and room.pinned_bytes("fingerprints", int(rows)) > budget(room, DEFER_SHARE)


def record(store) -> None:
    """Record the documents of the relation ``gone_docs`` as removed with their fingerprint rows
    still stored (inside the removal's transaction, before their documents rows are deleted)."""
    store.connection.execute(sqlfiles.load("documents_removed_insert"))


def spans_for(pinned: int, limit: int) -> list[tuple[int, int]]:
    """Spans of consecutive buckets (first, last), as few as keep each one's share of ``pinned``
    within ``limit``: at most one bucket each (buckets hold about as many rows each)."""
    n = min(BUCKETS, max(1, math.ceil(pinned / max(1, limit))))
    return [(i * BUCKETS // n, (i + 1) * BUCKETS // n - 1) for i in range(n)]


def pending_rows(store) -> tuple[int, int]:
    """How many removed documents still have fingerprint rows stored, and how many they had."""
    documents, rows = store.rows("documents_removed_rows")[0]
    return int(documents), int(rows)


def purge(store, on_span: Callable[[int, int], None] | None = None) -> int:
    """Delete the fingerprint rows of the documents in ``documents_removed``, a span of buckets
    per transaction with a checkpoint after each, and forget the documents with the last; how
    many documents were purged (0: none waiting, or a read-only index). ``on_span(done, of)``
    after each span. Call it outside any transaction."""
    if store.read_only or store.is_memory:
        return 0
    documents, rows = pending_rows(store)
    if not documents:
        return 0
    store.checkpoint()  # lets go of what the removal's own deletes pinned
    # one room for every span (each span's transaction takes it): it counts the table's row
    # groups once (pragma_storage_info: 0.6 s at 1,000,000 documents), where a room per span
    # counted them again for each
    with room_for_deletes(store) as room:
        assert room is not None
        spans = spans_for(room.pinned_bytes("fingerprints", rows), budget(room, SPAN_SHARE))
        for i, span in enumerate(spans):
            delete_span(store, span, math.ceil(rows / len(spans)), last=i == len(spans) - 1)
            store.checkpoint()
            if on_span is not None:
                on_span(i + 1, len(spans))
    return documents


def delete_span(store, span: tuple[int, int], rows: int, *, last: bool) -> None:
    """One transaction of ``purge``: the removed documents' rows in the buckets ``span`` (first,
    last) deleted, about ``rows`` of them; with ``last``, the documents forgotten too."""
    low, high = span_range(span)
    with room_for_deletes(store, {"fingerprints": rows}), store.transaction():
        store.run("fingerprints_removed_delete", low=low, high=high)
        if last:
            store.run("documents_removed_clear")
