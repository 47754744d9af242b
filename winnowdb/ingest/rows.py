"""A chunk's fingerprint rows as one table, grouped by hash bucket where the chunk is fingerprinted.

``add`` stores its rows bucket by bucket (``store.runs``). The grouping is done for each chunk of
files in the worker process that fingerprinted it (``rows_piece``: the chunk's documents' rows
concatenated, with each row's document as its place in the chunk, ``local``, and ordered by
bucket, stably), so ``add``'s main process never sorts rows: it gives each document its id
(``Batch``), and hands the run each bucket's slice with the ids filled in (``piece_rows``). A
chunk's documents may be committed in two batches (a batch ends within the chunk): each batch
takes the rows of its own documents.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..store.buckets import BUCKETS, bucket_of

__all__ = ["RowsPiece", "rows_piece", "piece_rows", "merge_rows", "ROW_COLUMNS"]

#: the columns of a piece, with their dtypes (``store.runs.COLUMNS`` with ``local`` for ``doc``,
#: and the first-of-hash mask)
ROW_COLUMNS = (("hash", np.int64), ("local", np.int32), ("pos", np.int32), ("first", np.bool_))


@dataclass
class RowsPiece:
    """The fingerprint rows of ``docs`` documents: ``columns`` (``ROW_COLUMNS``) ordered by hash
    bucket, bucket p's rows at ``bounds[p]:bounds[p + 1]``; within a bucket, in document order."""

    columns: dict
    bounds: np.ndarray
    docs: int


def rows_piece(fingerprints: list, firsts: list) -> RowsPiece:
    """The rows of documents given as their ``Fingerprints`` and first-of-hash masks, in order."""
    lengths = [len(f) for f in fingerprints]
    h = np.concatenate([f.hash for f in fingerprints]) if fingerprints else np.empty(0, np.int64)
    part = bucket_of(h)
    order = np.argsort(part, kind="stable")
    local = np.repeat(np.arange(len(fingerprints), dtype=np.int32), lengths)
    columns = {"hash": h[order], "local": local[order]}
    pos = np.concatenate([f.pos for f in fingerprints]) if fingerprints else np.empty(0)
    columns["pos"] = pos.astype(np.int32)[order]
    columns["first"] = (np.concatenate(firsts) if firsts else np.empty(0)).astype(np.bool_)[order]
    bounds = np.searchsorted(part[order], np.arange(BUCKETS + 1)).astype(np.int64)
    return RowsPiece(columns, bounds, len(fingerprints))


def piece_rows(piece: RowsPiece, ids: np.ndarray) -> tuple[dict, np.ndarray]:
    """(columns, bounds): the piece's rows of the documents that have an id (``ids[local]``, -1
    for none), with a ``doc`` column instead of ``local`` (``store.runs.COLUMNS`` and ``first``)."""
    cols = piece.columns
    doc = ids[cols["local"]]
    out = {"hash": cols["hash"], "doc": doc, "pos": cols["pos"], "first": cols["first"]}
    bounds = piece.bounds
    kept = doc >= 0
    if not kept.all():  # a document of the chunk that is in another batch, or never stored
        out = {k: v[kept] for k, v in out.items()}
        bounds = np.concatenate(([0], np.cumsum(kept)))[bounds]
    return out, bounds


def merge_rows(parts: list[tuple[dict, np.ndarray]]) -> tuple[dict, np.ndarray]:
    """Several (columns, bounds) as one, still ordered by bucket (and, within a bucket, in the
    parts' order)."""
    if len(parts) == 1:
        return parts[0]
    slices = [(i, int(b[p]), int(b[p + 1])) for p in range(BUCKETS) for i, (_, b) in enumerate(parts)
              if b[p + 1] > b[p]]
    names = list(parts[0][0])
    merged = {name: np.concatenate([parts[i][0][name][lo:hi] for i, lo, hi in slices])
              if slices else parts[0][0][name][:0] for name in names}
    sizes = np.zeros(BUCKETS, dtype=np.int64)
    for _, b in parts:
        sizes += np.diff(b)
    return merged, np.concatenate(([0], np.cumsum(sizes)))
