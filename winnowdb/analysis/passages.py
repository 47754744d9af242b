"""Merge matching fingerprints into passages: maximal runs of matches in step in both documents.

As in the Winnowing paper's account of MOSS, single fingerprint matches are grouped into passages:
matches on the same alignment (the same offset between the two documents) whose k-grams follow
each other within one window form a run; overlapping runs are then merged, so a copy with small
edits is one passage. Each passage gives its span in both originals (character offsets), which
the reports turn into line ranges and highlighted text.

Winnowing keeps one k-gram in a window, so the first and last matched k-grams of a passage
usually start and end inside the material the two documents share (mid-word, in text): the
shared run goes on for up to a window's worth of units on either side. ``extend_passages``
follows it, comparing the normalized units on both sides outward from the outermost matches,
for at most t - 1 = w + k - 2 units each way (so a passage grows to its true edges without
swallowing adjacent material, such as boilerplate, that did not match). Where units are single
characters (the text and prose normalizers), a grown edge must fall on a word boundary in both documents
(combining accents belong to their letter): "galax|ies" and "tomato|es" share "es", which is
not a shared word, so a passage never grows into it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Passage", "merge_matches", "extend_passages", "TextEdges"]


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
    #: k-gram positions (unit indexes in the normalized texts) of the leftmost match in a and its
    #: partner in b, and of the rightmost match in a and its partner in b (-1: unknown)
    first_a: int = -1
    first_b: int = -1
    last_a: int = -1
    last_b: int = -1

    @property
    def length_a(self) -> int:
        return self.end_a - self.start_a


def merge_matches(m: dict[str, np.ndarray], w: int) -> list[Passage]:
    """Passages from match rows (columns doc_a, pos_a, start_a, end_a, doc_b, pos_b, ...).

    Returned in the order of ``(doc_a, doc_b, start_a, start_b)``.
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
    lo, hi = agg("pos_a", np.minimum), agg("pos_a", np.maximum)  # a run's matches share one diagonal
    counts = np.bincount(run_id, minlength=runs)
    rda, rdb, rdg = da[new_run], db[new_run], dg[new_run]
    # merge runs that overlap in both documents (small edits shift the alignment)
    ro = np.lexsort((sb, sa, rdb, rda))  # by start in a, then in b (one text copied twice: in order)
    out: list[Passage] = []
    cur: list[int] | None = None
    for i in ro:
        p = [int(rda[i]), int(rdb[i]), int(sa[i]), int(ea[i]), int(sb[i]), int(eb[i]), int(counts[i]),
             int(lo[i]), int(lo[i] - rdg[i]), int(hi[i]), int(hi[i] - rdg[i])]
        if cur is not None and cur[0] == p[0] and cur[1] == p[1] and p[2] <= cur[3] \
                and p[4] <= cur[5] and p[5] >= cur[4] and not (p[2] < 0 and p[4] < 0):  # no span: kept apart
            cur[3] = max(cur[3], p[3])
            cur[4] = min(cur[4], p[4])
            cur[5] = max(cur[5], p[5])
            cur[6] += p[6]
            if p[7] < cur[7]:
                cur[7], cur[8] = p[7], p[8]
            if p[9] > cur[9]:
                cur[9], cur[10] = p[9], p[10]
            continue
        if cur is not None:
            out.append(Passage(*cur))
        cur = p
    assert cur is not None  # n > 0: there is a run
    out.append(Passage(*cur))
    return out


def _run_length(x: np.ndarray, y: np.ndarray) -> int:
    """How many leading elements of ``x`` and ``y`` are equal (they may differ in length)."""
    n = min(x.shape[0], y.shape[0])
    if n == 0:
        return 0
    differ = np.flatnonzero(x[:n] != y[:n])
    return int(differ[0]) if differ.size else n


class TextEdges:
    """What growing passages needs to know of one text document (``text`` or ``prose``
    normalizer): its normalized units, and for each whether a word starts at it and whether one
    ends with it (combining accents belong to the letter before them; the space and mark units of
    prose are in no word), and where the unit ends with its accents."""

    def __init__(self, text: str, norm, k: int, w: int) -> None:
        from ..normalize.fold import word_joiners
        from ..normalize.prose import PROSE_MARK, PROSE_SPACE
        from ..normalize.units import code_points

        self.norm, self.k, self.limit = norm, k, w + k - 2  # grow at most t - 1 units per end
        n = len(text)
        start, stop = np.asarray(norm.start, dtype=np.int64), np.asarray(norm.stop, dtype=np.int64)
        letter = (norm.units != PROSE_SPACE) & (norm.units != PROSE_MARK)  # never a folded letter
        word_char = np.zeros(n + 1, dtype=bool)  # letters, digits and combining marks; False at n
        word_char[start[letter]] = True
        mark = word_joiners(code_points(text))
        word_char[:n] |= mark
        self.starts_word = letter & ((start == 0) | ~word_char[np.maximum(start - 1, 0)])
        nonmark = np.append(np.flatnonzero(~mark), n)
        self.stop = nonmark[np.searchsorted(nonmark, stop)]  # each unit's end, past its accents
        self.ends_word = letter & ~word_char[self.stop]


def _grow(a: np.ndarray, b: np.ndarray, n: int, *, last: bool) -> int:
    """Of the ``n`` candidate growths (boolean masks ``a`` and ``b``, both documents allowing it),
    the largest allowed by both: index of the first True when ``last`` is False, of the last
    True when it is (masks run from the farthest candidate or from the nearest, see callers)."""
    ok = np.flatnonzero(a[:n] & b[:n])
    if not ok.size:
        return 0
    return int(ok[-1]) + 1 if last else n - int(ok[0])


def extend_passages(passages: list[Passage], edges_a: dict, edges_b: dict) -> list[Passage]:
    """``passages`` grown to the edges of the words both texts share (see the module docstring).

    ``edges_a`` / ``edges_b`` map doc ids of each side to their ``TextEdges``; a passage of a
    document missing there is kept as it is. An edge grows while the letters agree, at most
    t - 1 units, and stops at the farthest point where a word starts (ends) in both texts; an
    edge left inside a word in either text (a k-gram matched across a word boundary) moves in
    to the nearest shared word boundary, at most k - 1 units, so no matched word is lost. Passages
    that come to overlap in both documents are merged.
    """
    grown: list[Passage] = []
    for p in passages:
        ea, eb = edges_a.get(p.doc_a), edges_b.get(p.doc_b)
        if ea is None or eb is None or p.first_a < 0:
            grown.append(p)
            continue
        ua, ub, k = ea.norm.units, eb.norm.units, ea.k
        if p.last_a + k > ua.shape[0] or p.last_b + k > ub.shape[0]:  # not these texts' k-grams
            grown.append(p)
            continue
        lim = ea.limit
        left = _run_length(ua[max(0, p.first_a - lim):p.first_a][::-1], ub[max(0, p.first_b - lim):p.first_b][::-1])
        end_a, end_b = p.last_a + k, p.last_b + k  # first units after the last matched k-grams
        right = _run_length(ua[end_a:end_a + lim], ub[end_b:end_b + lim])
        # farthest growth ending on a word boundary in both texts
        left = _grow(ea.starts_word[p.first_a - left:p.first_a], eb.starts_word[p.first_b - left:p.first_b],
                     left, last=False)
        right = _grow(ea.ends_word[end_a:end_a + right], eb.ends_word[end_b:end_b + right], right, last=True)
        fa, fb = p.first_a - left, p.first_b - left
        la, lb = end_a + right - 1, end_b + right - 1  # last units of the grown passage
        inner = min(k - 1, la - fa)
        if not (ea.starts_word[fa] and eb.starts_word[fb]):  # still inside a word: in to a boundary
            ok = np.flatnonzero(ea.starts_word[fa + 1:fa + 1 + inner] & eb.starts_word[fb + 1:fb + 1 + inner])
            if ok.size:
                fa, fb = fa + int(ok[0]) + 1, fb + int(ok[0]) + 1
        inner = min(k - 1, la - fa)
        if not (ea.ends_word[la] and eb.ends_word[lb]):
            ok = np.flatnonzero(ea.ends_word[la - inner:la][::-1] & eb.ends_word[lb - inner:lb][::-1])
            if ok.size:
                la, lb = la - int(ok[0]) - 1, lb - int(ok[0]) - 1
        start_a, start_b = int(ea.norm.start[fa]), int(eb.norm.start[fb])
        stop_a, stop_b = int(ea.stop[la]), int(eb.stop[lb])
        if fa <= p.first_a:  # grown (not moved in) at the start: never lose what the matches span
            start_a, start_b = min(start_a, p.start_a), min(start_b, p.start_b)
        if la >= p.last_a + k - 1:
            stop_a, stop_b = max(stop_a, p.end_a), max(stop_b, p.end_b)
        grown.append(Passage(p.doc_a, p.doc_b, start_a, stop_a, start_b, stop_b, p.matches,
                             fa, fb, la - k + 1, lb - k + 1))
    grown.sort(key=lambda p: (p.doc_a, p.doc_b, p.start_a, p.start_b))
    out: list[Passage] = []
    for p in grown:
        cur = out[-1] if out else None
        if cur is not None and cur.doc_a == p.doc_a and cur.doc_b == p.doc_b and p.start_a <= cur.end_a \
                and p.start_b <= cur.end_b and p.end_b >= cur.start_b and not (p.start_a < 0 and p.start_b < 0):
            first = cur if cur.first_a <= p.first_a else p
            last = cur if cur.last_a >= p.last_a else p
            out[-1] = Passage(cur.doc_a, cur.doc_b, cur.start_a, max(cur.end_a, p.end_a), min(cur.start_b, p.start_b),
                              max(cur.end_b, p.end_b), cur.matches + p.matches, first.first_a, first.first_b,
                              last.last_a, last.last_b)
            continue
        out.append(p)
    return out
