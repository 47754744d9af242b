"""Broder's sketches: MIN_s samples of each document's fingerprints, resemblance estimates, super shingles.

A document's *sketch* ``MIN_s`` is the ``s`` smallest of its usable fingerprint hashes (all of them
when it has fewer). Hashes are pseudo-random, so taking the smallest is the same random sample in
every document (the paper's random permutation), and for two documents A and B

    |MIN_s(F(A) u F(B)) n F(A) n F(B)| / |MIN_s(F(A) u F(B))|

is an unbiased estimate of their resemblance |A n B| / |A u B|, read from two sketches of at most
``s`` hashes each, whatever the documents' lengths. It is exact when A and B have at most ``s``
usable hashes together. (The other sampling scheme in the paper, ``MOD_m``, is an index-wide
selection: ``winnowdb add --selection mod --mod-m M``; then the ordinary resemblance and
containment of ``pairs``/``query`` are Broder's MOD_m estimates.)

*Super shingles* shingle the sorted sketch again (runs of ``length`` consecutive sketch hashes);
documents sharing one are clustering candidates without any pair counting. See
``sql/super_shingle_candidates.sql`` for their limits.

Everything is computed in SQL from the stored fingerprints (``sql/cluster_usable_hashes.sql``,
``sql/sketch_*.sql``, ``sql/super_shingle_candidates.sql``); "usable" hashes exclude boilerplate
and very common hashes (more than ``max_df`` documents), as in the core. The functions take an
open index's ``sides.Reader`` (read-only is fine: the intermediate results are temporary tables)
and a set of participating documents (default: every ordinary document), which defines the document frequency.
"""
from __future__ import annotations

import contextlib
import os
from typing import Iterable

import numpy as np

from ..errors import WinnowError

__all__ = ["document_sketches", "pair_estimates", "super_shingle_candidates", "query_sketch", "prepared",
           "prepared_estimates", "prepared_super_candidates", "all_documents", "doc_table", "USABLE", "SKETCHES",
           "DEFAULT_S", "DEFAULT_SUPER_LENGTH"]

#: default sketch size (Broder keeps a few hundred bytes per document: 100 hashes of 8 bytes)
DEFAULT_S = 100
#: default super-shingle length: runs of 6 sketch hashes (see docs/clusters.md for the odds)
DEFAULT_SUPER_LENGTH = 6


def doc_table(docs: Iterable[int] | np.ndarray):
    """The relation ``(doc INTEGER)`` of the given doc ids, as a numpy column dict."""
    return {"doc": np.asarray(list(docs) if not isinstance(docs, np.ndarray) else docs, dtype=np.int32)}


def all_documents(reader) -> np.ndarray:
    """Doc ids of every ordinary document (kind 'document')."""
    return reader.store.columns("ordinary_documents")["doc"].astype(np.int64)


def _check_s(s: int, name: str = "s") -> int:
    if int(s) < 1:
        raise WinnowError(f"sketch size {name} must be a positive whole number, not {s}")
    return int(s)


#: relations the cluster_*, sketch_* and super_shingle_* queries read (temporary tables)
USABLE = "usable_hashes"
SKETCHES = "doc_sketches"


@contextlib.contextmanager
def prepared(reader, *, docs=None, max_df: int | None = None, s: int | None = None):
    """Materialize ``usable_hashes`` for ``docs`` (default: every ordinary document) and, given
    ``s``, their MIN_s sketches ``doc_sketches``, as temporary tables for a ``with`` block.

    Every later query of one run reads them, so the exclusions and the document frequency are
    computed once. Yields the member doc ids (sorted int64).
    """
    members = np.unique(all_documents(reader) if docs is None else np.asarray(list(docs) if not isinstance(
        docs, np.ndarray) else docs, dtype=np.int64))
    store = reader.store
    made = []
    try:
        with store.relations(member_docs=doc_table(members)):
            store.temp_table(USABLE, "cluster_usable_hashes", max_df=reader.max_df(max_df))
        made.append(USABLE)
        if s is not None:
            store.temp_table(SKETCHES, "sketch_min_s", s=_check_s(s))
            made.append(SKETCHES)
        yield members
    finally:
        for table in reversed(made):
            store.drop_temp(table)


def document_sketches(reader, *, s: int = DEFAULT_S, docs=None, max_df: int | None = None) -> dict[int, np.ndarray]:
    """doc -> its MIN_s sketch (sorted int64 hashes) for ``docs`` (default: all ordinary documents)."""
    s = _check_s(s)
    with prepared(reader, docs=docs, max_df=max_df) as members:
        tbl = reader.store.columns("sketch_min_s", s=s)
    doc = np.asarray(tbl["doc"], dtype=np.int64)
    h = np.asarray(tbl["hash"], dtype=np.int64)
    order = np.lexsort((np.asarray(tbl["rnk"]), doc))
    doc, h = doc[order], h[order]
    out = {int(d): np.empty(0, dtype=np.int64) for d in members.tolist()}
    if doc.shape[0]:
        bounds = np.flatnonzero(np.concatenate(([True], doc[1:] != doc[:-1], [True])))
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            out[int(doc[lo])] = h[lo:hi]
    return out


def prepared_estimates(reader, a, b, s: int) -> dict:
    """MIN_s estimates of pairs, reading the sketches ``prepared(..., s=s)`` made (same ``s``)."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    wanted = {"a": a.astype(np.int32), "b": b.astype(np.int32)}
    with reader.store.relations(sketch_pairs_wanted=wanted):
        tbl = reader.store.columns("sketch_pair_estimates", s=s)
    return {"a": np.asarray(tbl["a"], dtype=np.int64), "b": np.asarray(tbl["b"], dtype=np.int64),
            "sketch_shared": np.asarray(tbl["sketch_shared"], dtype=np.int64),
            "sketch_size": np.asarray(tbl["sketch_size"], dtype=np.int64),
            "resemblance": np.asarray(tbl["resemblance"], dtype=np.float64)}


def pair_estimates(reader, a, b, *, s: int = DEFAULT_S, docs=None, max_df: int | None = None) -> dict:
    """MIN_s resemblance estimates of the pairs ``(a[i], b[i])`` (doc ids).

    Returns numpy arrays ``a``, ``b`` (the distinct pairs asked for, sorted), ``sketch_shared``,
    ``sketch_size`` and ``resemblance``. ``docs`` are the participating documents (default all).
    """
    s = _check_s(s)
    with prepared(reader, docs=docs, max_df=max_df, s=s):
        return prepared_estimates(reader, a, b, s)


def prepared_super_candidates(reader, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Super-shingle candidate pairs, reading the sketches ``prepared`` made."""
    tbl = reader.store.columns("super_shingle_candidates", length=length)
    return np.asarray(tbl["a"], dtype=np.int64), np.asarray(tbl["b"], dtype=np.int64)


def super_shingle_candidates(reader, *, s: int = DEFAULT_S, length: int = DEFAULT_SUPER_LENGTH, docs=None,
                             max_df: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs ``(a, b)`` (a < b): b shares a super shingle with a, the smallest doc sharing it."""
    s = _check_s(s)
    length = _check_s(length, "length")
    if length > s:
        raise WinnowError(f"super-shingle length {length} is longer than the sketch ({s} hashes)")
    with prepared(reader, docs=docs, max_df=max_df, s=s):
        return prepared_super_candidates(reader, length)


def query_sketch(reader, source: str | os.PathLike, *, s: int = DEFAULT_S, top: int = 10,
                 max_df: int | None = None, min_shared: int = 1, language: str | None = None) -> list[dict]:
    """Indexed submissions ranked by the MIN_s estimate of their resemblance with ``source``.

    Each hit: path (the submission), sketch_shared, sketch_size, resemblance (the estimate).
    Exclusions and document frequency as in ``Index.query`` (per submission).
    """
    s = _check_s(s)
    side = reader.side(source, language)
    store = reader.store
    with store.relations(query_fingerprints={"hash": side.fingerprints["hash"]}):
        # the --top rows by LIMIT, every row fetched: a result left half-read (fetchmany) kept the
        # connection busy, and the CLI's next statement failed ("unfinished result")
        return store.records("sketch_query_hits", limit=top if top and top > 0 else None, s=s,
                             max_df=reader.max_df(max_df), exclude=side.submission,
                             min_shared=max(1, int(min_shared)))
