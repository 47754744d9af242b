"""Documents a killed ``add`` committed but did not store the fingerprints of: stored now.

``add`` commits documents and their texts batch by batch (``documents_pending``) and stores
their fingerprints at its end; a kill in between leaves them pending (never read by queries),
maybe with some buckets of their fingerprint rows stored. ``fold_pending`` drops those rows,
fingerprints the documents again from their stored texts (exactly as ``add`` did: the same
recipe, ``document.fingerprint_source``) and stores them, so the next ``add`` finishes the job
without reading the files again. Their document rows are kept as committed.
"""
from __future__ import annotations

import numpy as np

from ..store.runs import FingerprintRun, drop_pending_rows
from ..store.writes import bulk_writes
from . import segmented
from .document import fingerprint_source
from .prepare import first_of_each_hash

__all__ = ["fold_pending", "BATCH_CHARS"]

#: characters of pending texts read back at a time
BATCH_CHARS = 16 * 1024 * 1024


def fold_pending(store) -> int:
    """Store every pending document's fingerprints (``FingerprintRun.finish``); how many there were."""
    rows = store.rows("pending_sizes")
    if not rows:
        return 0
    settings = store.settings
    drop_pending_rows(store)  # the buckets a killed add had stored of them, if any
    with FingerprintRun(store) as run:
        start = 0
        while start < len(rows):
            chunk: list[int] = []
            chars = 0
            while start < len(rows) and (not chunk or chars < BATCH_CHARS):
                chunk.append(rows[start][0])
                chars += rows[start][1]
                start += 1
            with store.relations(wanted_docs={"doc": np.array(chunk, dtype=np.int32)}):
                docs = store.rows("pending_documents_with_texts")
            for doc, path, kind, normalizer, _, hashes, text in docs:
                language = normalizer.split(":", 1)[1] if normalizer.startswith("code:") else None
                every = kind == "boilerplate"
                if segmented.is_huge(text, settings, path, language):
                    fps = segmented.fingerprints_of(text, settings, path=path, language=language, every_kgram=every)
                else:
                    _, _, fps = fingerprint_source(text, settings, path=path, language=language, every_kgram=every)
                # the df is counted as the add that committed the document said: from each
                # hash's first row, or when stored (hashes -1: huge then). Not by what is huge
                # now: a document that was not huge when added (HUGE_CHARS changed since) would
                # count for none of its hashes
                first = np.zeros(len(fps), dtype=bool) if hashes < 0 else first_of_each_hash(fps.hash)[0]
                run.add({"hash": fps.hash, "doc": np.full(len(fps), doc, dtype=np.int32), "pos": fps.pos}, first)
        with bulk_writes(store):
            run.finish()
    return len(rows)
