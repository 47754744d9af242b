"""Merge matching fingerprints into passages: maximal runs of matches in step in both documents.

As in the Winnowing paper's account of MOSS, single fingerprint matches are grouped into passages:
matches on the same alignment (the same offset between the two documents) whose k-grams follow
each other within one window form a run; overlapping runs are then merged, so a copy with small
edits is one passage. Each passage gives its span in both originals (character offsets), which
the reports turn into line ranges and highlighted text.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Passage", "merge_matches"]


@dataclass(frozen=True)
class Passage:
    """One matched passage: the same material at start_a:end_a of doc_a and start_b:end_b of doc_b."""

    doc_a: int
    doc_b: int
    start_a: int
    end_a: int
    start_b: int
    end_b: int
    matches: int  # fingerprint matches merged into it

    @property
    def length_a(self) -> int:
        return self.end_a - self.start_a


def merge_matches(m: dict[str, np.ndarray], w: int) -> list[Passage]:
    """Passages from match rows (columns doc_a, pos_a, start_a, end_a, doc_b, pos_b, ...).

    Returned in the order of ``(doc_a, doc_b, start_a)``.
    """
    n = len(m["doc_a"])
    if n == 0:
        return []
    doc_a = np.asarray(m["doc_a"], dtype=np.int64)
    doc_b = np.asarray(m["doc_b"], dtype=np.int64)
    pos_a = np.asarray(m["pos_a"], dtype=np.int64)
    pos_b = np.asarray(m["pos_b"], dtype=np.int64)
    diag = pos_a - pos_b
    order = np.lexsort((pos_a, diag, doc_b, doc_a))
    da, db, pa_, dg = doc_a[order], doc_b[order], pos_a[order], diag[order]
    new_run = np.ones(n, dtype=bool)
    new_run[1:] = (da[1:] != da[:-1]) | (db[1:] != db[:-1]) | (dg[1:] != dg[:-1]) | (pa_[1:] - pa_[:-1] > w)
    run_id = np.cumsum(new_run) - 1
    runs = int(run_id[-1]) + 1

    def agg(col: str, fn) -> np.ndarray:
        vals = np.asarray(m[col], dtype=np.int64)[order]
        out = np.full(runs, np.iinfo(np.int64).max if fn is np.minimum else -1, dtype=np.int64)
        fn.at(out, run_id, vals)
        return out

    sa, ea = agg("start_a", np.minimum), agg("end_a", np.maximum)
    sb, eb = agg("start_b", np.minimum), agg("end_b", np.maximum)
    counts = np.bincount(run_id, minlength=runs)
    rda, rdb = da[new_run], db[new_run]
    # merge runs that overlap in both documents (small edits shift the alignment)
    ro = np.lexsort((sa, rdb, rda))
    out: list[Passage] = []
    cur = None
    for i in ro:
        p = [int(rda[i]), int(rdb[i]), int(sa[i]), int(ea[i]), int(sb[i]), int(eb[i]), int(counts[i])]
        if cur is not None and cur[0] == p[0] and cur[1] == p[1] and p[2] <= cur[3] \
                and p[4] <= cur[5] and p[5] >= cur[4]:
            cur[3] = max(cur[3], p[3])
            cur[4] = min(cur[4], p[4])
            cur[5] = max(cur[5], p[5])
            cur[6] += p[6]
            continue
        if cur is not None:
            out.append(Passage(*cur))
        cur = p
    out.append(Passage(*cur))
    return out
