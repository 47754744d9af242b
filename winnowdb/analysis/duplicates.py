"""Exact and near-exact duplicates: Broder's identical, lexically-equivalent and shingle-equivalent documents.

Three nested kinds of duplicate, each found from one hash stored at add time:

* ``identical``: the same raw bytes (``documents.content_hash``);
* ``lexical``: the same text after normalization (``documents.normalized_hash``), e.g. the same
  words with other spacing, case or punctuation;
* ``fingerprint``: the same set of stored fingerprints (Broder's "shingle-equivalent"), e.g. the
  same passages in another order, or differences too small for any fingerprint to see.

Every identical group lies inside a lexical group, and every lexical group inside a fingerprint
group. The equivalences are computed in SQL (``sql/duplicate_representatives.sql``: one
representative per document and kind, the smallest doc id of its group); this module groups
those rows and reports a group only where it says something new: a lexical group when it joins
documents that are not all identical, a fingerprint group when it joins documents that are not
all lexically equivalent.

Clustering (``winnowdb.clusters``) uses the fingerprint representatives to fold duplicates
before it counts pairs, as the paper does, and adds them back afterwards.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["LEVELS", "Representatives", "representatives", "find_duplicates"]

#: kinds of duplicate, finest first
LEVELS = ("identical", "lexical", "fingerprint")


@dataclass
class Representatives:
    """Per ordinary document (sorted by doc id): its path and its representative at each level."""

    doc: np.ndarray  # int64
    path: list[str]
    submission: list[str]
    identical: np.ndarray  # int64: smallest doc with the same bytes
    lexical: np.ndarray  # int64: smallest doc with the same normalized text
    fingerprint: np.ndarray  # int64: smallest doc with the same fingerprint set
    fingerprints: np.ndarray  # int64: distinct stored hashes

    def __len__(self) -> int:
        return int(self.doc.shape[0])

    def paths(self) -> dict[int, str]:
        return dict(zip(self.doc.tolist(), self.path))


def representatives(reader) -> Representatives:
    """Run ``duplicate_representatives.sql`` on an open index's ``sides.Reader`` (read-only is fine)."""
    tbl = reader.store.columns("duplicate_representatives")
    col = lambda name: np.asarray(tbl[name], dtype=np.int64)  # noqa: E731
    return Representatives(doc=col("doc"), path=[str(p) for p in tbl["path"]],
                           submission=[str(s) for s in tbl["submission"]],
                           identical=col("identical_rep"), lexical=col("lexical_rep"),
                           fingerprint=col("fingerprint_rep"), fingerprints=col("fingerprints"))


def _groups(rep: np.ndarray, finer: np.ndarray | None) -> list[np.ndarray]:
    """Row indices of each group of ``rep`` with two or more members that ``finer`` splits
    (all groups of two or more when ``finer`` is None), largest first, then by representative."""
    if rep.shape[0] == 0:
        return []
    order = np.lexsort((np.arange(rep.shape[0]), rep))
    srep = rep[order]
    bounds = np.flatnonzero(np.concatenate(([True], srep[1:] != srep[:-1], [True])))
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if hi - lo < 2:
            continue
        rows = order[lo:hi]
        if finer is not None and np.unique(finer[rows]).shape[0] < 2:
            continue
        out.append(rows)
    out.sort(key=lambda rows: (-rows.shape[0], int(rep[rows[0]])))
    return out


def find_duplicates(reader, levels: tuple[str, ...] | list[str] = LEVELS) -> list[dict]:
    """Groups of duplicate documents in an open index (its ``sides.Reader``).

    Each group: ``level`` (identical | lexical | fingerprint), ``group`` (the representative's
    doc id), ``representative`` (its path), ``size`` and ``members`` (paths, the representative
    first, then by doc id), ``docs`` (doc ids, same order), ``fingerprints`` (distinct stored hashes
    of the representative). Identical groups first, then lexical, then fingerprint; within a
    level, largest first.
    """
    bad = [lv for lv in levels if lv not in LEVELS]
    if bad:
        from ..errors import WinnowError

        raise WinnowError(f"unknown duplicate level {bad[0]!r} (choose from {', '.join(LEVELS)})")
    reps = representatives(reader)
    finer_of = {"identical": None, "lexical": reps.identical, "fingerprint": reps.lexical}
    out = []
    for level in LEVELS:
        if level not in levels:
            continue
        rep = getattr(reps, level)
        for rows in _groups(rep, finer_of[level]):
            rows = rows[np.argsort(reps.doc[rows], kind="stable")]  # representative first
            docs = reps.doc[rows].tolist()
            out.append({"level": level, "group": int(rep[rows[0]]), "representative": reps.path[rows[0]],
                        "size": len(docs), "members": [reps.path[i] for i in rows.tolist()],
                        "docs": docs, "fingerprints": int(reps.fingerprints[rows[0]])})
    return out
