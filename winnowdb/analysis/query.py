"""``query``: which indexed submissions share passages with one document, ranked.

The document is a side (``sides.Reader``: an indexed file or submission, or a file fingerprinted
under the index's settings); ``sql/query_hits.sql`` finds the hits from the index's occurrences
of its hashes, with the exclusions of ``pairs`` (boilerplate, more than ``max_df`` submissions).
An indexed document does not find its own submission.
"""
from __future__ import annotations

import os

from .sides import Reader

__all__ = ["query_hits"]


def query_hits(reader: Reader, source: str | os.PathLike, *, top: int = 10, max_df: int | None = None,
               min_shared: int = 1, language: str | None = None) -> list[dict]:
    """Indexed submissions sharing fingerprints with the file ``source``, ranked (``Index.query``)."""
    side = reader.side(source, language)
    store = reader.store
    with store.relations(query_fingerprints={"hash": side.fingerprints["hash"]}):
        return store.records("query_hits", top=int(top) if top and top > 0 else None,
                             max_df=reader.max_df(max_df), exclude=reader.submission_of(source),
                             min_shared=max(1, int(min_shared)))
