"""``query``: which indexed submissions share passages with one document, ranked.

The document is a side (``sides.Reader``: an indexed file or submission, or a file fingerprinted
under the index's settings). ``sql/query_found.sql`` reads the index's occurrences of its usable
hashes (from the few row groups that hold them: fingerprints are stored ordered by hash);
``sql/query_hits.sql`` finds the hits from them and keeps the ``top`` best by the pair score
estimated with their stored sizes and the ``top`` sharing the most (two statements, so that
DuckDB plans the documents' join knowing how few the occurrences are);
a query without code token fingerprints (a code file shorter than one k-gram of tokens) finds
its hits by its text family instead (``sql/query_text_found.sql``, as ``pairs`` pairs such a file);
``sql/query_hit_sizes.sql`` gives each
its size and scores, from the hit's own hashes, computed again from its stored text
(``Reader.document_fingerprints``), and orders them by the pair score (docs/score.md; for code,
with the query's text family, ``Reader.text_families``, and ``sql/text_evidence.sql``), of which
the ``top`` are shown.
The exclusions are those of ``pairs`` (boilerplate, more than ``max_df`` submissions). An indexed
document does not find its own submission.
"""
from __future__ import annotations

import os

from ..store.stats import common_floor
from .sides import Reader

__all__ = ["query_hits"]


def query_hits(reader: Reader, source: str | os.PathLike, *, top: int = 10, max_df: int | None = None,
               min_shared: int = 1, language: str | None = None) -> list[dict]:
    """Indexed submissions sharing fingerprints with the file ``source``, ranked (``Index.query``)."""
    import numpy as np

    side = reader.side(source, language)
    query_text = reader.text_families([side], language)[0]
    store = reader.store
    cap = reader.max_df(max_df)
    floor = common_floor(store)  # too common hashes: from common_hashes at or above it
    own = np.array(sorted(d for d in side.paths if d >= 0), dtype=np.int32)  # none for a file not indexed
    with store.relations(query_fingerprints={"hash": side.fingerprints["hash"]}, query_docs={"doc": own}):
        found = store.columns("query_found", max_df=cap, common_floor=floor, exclude=side.submission)
    with store.relations(query_found=found):  # a second statement: DuckDB then knows how few they are
        found = store.columns("query_hits", top=int(top) if top and top > 0 else None, exclude=side.submission,
                              min_shared=max(1, int(min_shared)))
    tokenless = side.fingerprints["hash"].shape[0] == 0
    if query_text.shape[0] and (tokenless or store.rows("tokenless_documents_any")[0][0]):
        # the hits without code tokens, by the text family (every hit of a query without them)
        with store.relations(query_text_hashes={"qid": np.zeros(query_text.shape[0], np.int32), "hash": query_text},
                             query_docs={"doc": own}):
            more = store.columns("query_text_found", max_df=cap, exclude=side.submission,
                                 min_shared=max(1, int(min_shared)), tokenless_only=not tokenless)
        if more["sub"].shape[0]:
            more["query_fingerprints"][:] = _usable(store, side, found, cap, floor) if not tokenless else 0
            found = {k: np.concatenate((found[k], more[k].astype(found[k].dtype))) for k in found}
    if found["sub"].shape[0] == 0:
        return []
    hits = {"sub": found["sub"].astype(np.int32), "submission": found["submission"].astype(object),
            "shared": found["shared"].astype(np.int64),
            "query_fingerprints": found["query_fingerprints"].astype(np.int64)}
    with store.relations(query_hit_rows=hits):
        rows = store.rows("hit_documents")
        fps = reader.document_fingerprints([(doc, path, text, chars, normalizer)
                                            for _, doc, path, normalizer, _, chars, text in rows])
        docs = np.array([doc for _, doc, *_ in rows], dtype=np.int64)  # ordered by doc (hit_documents.sql)
        subs = np.array([sub for sub, *_ in rows], dtype=np.int32)[np.searchsorted(docs, fps["doc"])]
        hit_text = {"sub": np.empty(0, np.int32), "text_containment": np.empty(0), "t": np.empty(0)}
        if query_text.shape[0]:  # a code query in an index with the text family: its evidence per hit
            with store.relations(query_text_hashes={"qid": np.zeros(query_text.shape[0], np.int32),
                                                    "hash": query_text},
                                 hit_text_hashes=store.columns("hit_text_hashes"),
                                 text_pairs={"qid": np.zeros(len(hits["sub"]), np.int32), "sub": hits["sub"]}):
                hit_text = store.columns("text_evidence", max_df=cap)
        with store.relations(hit_hashes={"sub": subs, "hash": fps["hash"]}, hit_text=hit_text):
            ranked = store.records("query_hit_sizes", max_df=cap, common_floor=floor)
    return ranked[:top] if top and top > 0 else ranked


def _usable(store, side, found: dict, cap: int, floor: int) -> int:
    """How many of the query's token hashes count (``query_found.sql``'s query_fingerprints): from
    its token hits when it has any, else counted (``countable_hashes.sql``)."""
    if found["sub"].shape[0]:
        return int(found["query_fingerprints"][0])
    with store.relations(side_hashes={"hash": side.fingerprints["hash"]}):
        return int(store.columns("countable_hashes", max_df=cap, common_floor=floor)["hash"].shape[0])
