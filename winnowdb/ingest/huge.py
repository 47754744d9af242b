"""Store one huge document in its own transaction, streaming its fingerprints segment by segment.

A document longer than ``segmented.HUGE_CHARS`` characters would need tens of gigabytes to be
fingerprinted whole; ``add_huge`` streams the fingerprints ``segmented.iter_fingerprints`` makes
into the index (``store.writes.write_streamed``), so memory stays bounded and the document is
stored completely or not at all.
"""
from __future__ import annotations

import numpy as np

from ..store.writes import write_streamed
from .batches import Batch
from .segmented import SegmentStats, iter_fingerprints, prose_edges, segment_params, text_family

__all__ = ["add_huge", "memory_cap_mb"]


def memory_cap_mb(size: int) -> int:
    """DuckDB's memory limit (MB) while storing a huge document of ``size`` bytes."""
    return max(512, 3 * size >> 20)


def add_huge(store, src, settings: dict[str, str], doc: dict, *, language: str | None = None,
             every_kgram: bool = False) -> int:
    """Store one huge document (a ``Source``) in its own transaction, streaming its fingerprints.

    ``doc`` holds the document row's fields that do not depend on the fingerprints (doc, path,
    submission, label, kind, added_at, replaces). Returns the number of fingerprints.
    """
    import pyarrow as pa

    params = segment_params(settings, text_family(settings, doc["path"], language), every_kgram)
    stats = SegmentStats()

    def _with_edges(pieces):  # prose boilerplate: also the k-grams across its edges
        yield from pieces
        if every_kgram and params["family"] == "prose":
            edges = prose_edges(src.text, params["k"], stats.units)
            stats.fingerprints += len(edges)
            if len(edges):
                yield edges

    schema = pa.schema([("hash", pa.int64()), ("doc", pa.int32()), ("pos", pa.int32()),
                        ("start_offset", pa.int32()), ("end_offset", pa.int32())])
    failure: list[BaseException] = []

    def batches():
        try:
            for f in _with_edges(iter_fingerprints(src.text, stats=stats, **params)):
                yield pa.record_batch([
                    pa.array(f.hash, pa.int64()),
                    pa.array(np.full(len(f), doc["doc"], dtype=np.int32)),
                    pa.array(f.pos.astype(np.int32)),
                    pa.array(f.start.astype(np.int32)),
                    pa.array(f.stop.astype(np.int32)),
                ], schema=schema)
        except BaseException as exc:  # DuckDB would report it as a scan error: keep the original
            failure.append(exc)
            raise

    def finish():
        batch = Batch()
        batch.docs.append(dict(doc, normalizer=params["family"], content_hash=src.content_hash,
                               normalized_hash=stats.normalized_hash, encoding=src.encoding,
                               bytes=src.size, chars=len(src.text), units=stats.units,
                               fingerprints=stats.fingerprints, simhash=stats.simhash))
        batch.texts.append(src.text)
        documents, texts, _ = batch.tables()
        return documents, texts

    import duckdb

    replaced = [doc["replaces"]] if doc.get("replaces") is not None else []
    # DuckDB would otherwise keep most of what the transaction writes in memory; a cap of a few
    # times the text makes it write out instead (peak RSS for a 200 MB file: 2.8 -> 1.7 GB).
    # Should the cap be too small, the document is stored again without one.
    for cap in (memory_cap_mb(src.size), None):
        stats = SegmentStats()
        failure.clear()
        try:
            write_streamed(store, pa.RecordBatchReader.from_batches(schema, batches()), finish, replaced,
                           memory_limit_mb=cap)
            return stats.fingerprints
        except duckdb.OutOfMemoryException:
            if cap is None:
                raise
        except Exception:
            if failure:
                raise failure[0] from None
            raise
    raise AssertionError("unreachable")
