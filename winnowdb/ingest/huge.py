"""Store one huge document: its fingerprints computed segment by segment into the add's run.

A document longer than ``segmented.HUGE_CHARS`` characters would need tens of gigabytes to be
fingerprinted whole; ``add_huge`` hands the fingerprints ``segmented.iter_fingerprints`` makes to
the add's ``store.runs.FingerprintRun`` a segment at a time (which spills them to disk beyond a
limit), so memory stays bounded, then commits the document's row and text like any batch: stored
with the rest of the add, completely or not at all.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..settings import digest_width
from ..store.interrupts import deferred_interrupt
from ..store.writes import write_batch
from .batches import Batch
from .segmented import SegmentStats, iter_fingerprints, prose_edges, segment_params, text_family

__all__ = ["add_huge"]


def add_huge(store, src, settings: dict[str, str], doc: dict, run, *, language: str | None = None,
             every_kgram: bool = False, on_commit: Callable[[int], None] | None = None) -> int:
    """Fingerprint one huge document (a ``Source``) into ``run`` and commit its row and text.

    ``doc`` holds the document row's fields that do not depend on the fingerprints (doc, path,
    submission, sub, label, kind, added_at, replaces). Its number of distinct hashes is counted
    when the run is stored (``hashes`` -1 until then). Ctrl-C stops the fingerprinting (the run
    drops the rows of a document that was never committed); once the row is being committed it
    waits until ``on_commit(fingerprints)`` has counted it. Returns the number of fingerprints.
    """
    family = text_family(settings, doc["path"], language)
    assert family is not None  # a huge document is text (segmented.is_huge), never code
    params = segment_params(settings, family, every_kgram)
    stats = SegmentStats(width=digest_width(settings, family))
    pieces = iter_fingerprints(src.text, stats=stats, **params)

    def with_edges():  # prose boilerplate: also the k-grams across its edges
        yield from pieces
        if every_kgram and params["family"] == "prose":
            edges = prose_edges(src.text, params["k"], stats.units)
            stats.fingerprints += len(edges)
            if len(edges):
                yield edges

    for f in with_edges():
        run.add({"hash": f.hash, "doc": np.full(len(f), doc["doc"], dtype=np.int32), "pos": f.pos},
                np.zeros(len(f), dtype=bool))
    batch = Batch()
    batch.docs.append(dict(doc, normalizer=params["family"], content_hash=src.content_hash,
                           normalized_hash=stats.normalized_hash, encoding=src.encoding, bytes=src.size,
                           chars=len(src.text), units=stats.units, fingerprints=stats.fingerprints,
                           simhash=stats.simhash, hashes=-1))
    batch.texts.append(src.text)
    documents, texts = batch.tables()
    with deferred_interrupt():  # Ctrl-C from here on waits: committed and counted, or neither
        write_batch(store, documents, texts)
        if on_commit:
            on_commit(stats.fingerprints)
    return stats.fingerprints
