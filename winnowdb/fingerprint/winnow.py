"""Winnowing: which k-gram hashes become a document's fingerprints (the Winnowing paper's step 2).

* ``winnow``: robust winnowing (the paper's Definition 3). In each window of ``w`` consecutive
  hashes the minimum is selected; ties are broken toward the hash selected for the previous window
  when it is still in the window, otherwise toward the rightmost minimum. The sliding minimum is
  computed in O(n) with the van Herk / Gil-Werman block method; the sequential tie rule only runs
  over the (rare) stretches where it changes the plain rightmost-minimum choice.
* ``select``: the selections an index can use (``settings.SELECTIONS``): winnowing, every
  k-gram (Broder's full shingling), or Broder's MOD_m.
* ``fingerprint``: the hashes of a normalized document's k-grams (``hashing.kgram_hashes``),
  selected, each with its k-gram index and the k-gram's span in the original text.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .hashing import kgram_hashes

__all__ = ["Fingerprints", "winnow", "select", "fingerprint", "window_minima", "robust_ties"]

_U64 = np.uint64


def window_minima(h: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """For each window h[i:i+w]: the index of its rightmost minimum, and the minimum.

    Doubling: after step j, ``arg``/``val`` describe windows of 2**j hashes; a window of w is
    the union of two overlapping power-of-two windows. Only contiguous vector operations are used.
    Ties prefer the right-hand half, which yields the rightmost minimum.
    """
    n = h.shape[0]
    val = h
    arg = np.arange(n, dtype=np.int64)
    span = 1
    while 2 * span <= w:
        m = val.shape[0] - span
        right = val[span:] <= val[:m]
        arg = np.where(right, arg[span:], arg[:m])
        val = np.minimum(val[span:], val[:m])
        span *= 2
    nw = n - w + 1
    off = w - span
    right = val[off : off + nw] <= val[:nw]
    return np.where(right, arg[off : off + nw], arg[:nw]), np.minimum(val[off : off + nw], val[:nw])


def winnow(h: np.ndarray, w: int, robust: bool = True) -> np.ndarray:
    """Indices of the selected hashes (sorted, distinct): winnowing with window ``w``.

    A sequence shorter than one window has the rightmost minimum of all its hashes selected, so
    every non-empty document has at least one fingerprint.
    """
    if w < 1:
        raise ValueError("w must be at least 1")
    n = int(h.shape[0])
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if n < w:
        return np.array([n - 1 - int(np.argmin(h[::-1]))], dtype=np.int64)
    r, m = window_minima(h, w)
    if robust:
        r = robust_ties(h, r, m)
    keep = np.empty(r.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(r[1:], r[:-1], out=keep[1:])
    return r[keep]  # selections move forward monotonically, so this is sorted and distinct


def robust_ties(h: np.ndarray, r: np.ndarray, m: np.ndarray, starts: np.ndarray | None = None,
                ends: np.ndarray | None = None) -> np.ndarray:
    """Apply Definition 3's tie rule to plain rightmost-minimum selections ``r`` (``m``: the
    windows' minima, as ``window_minima`` gives them).

    The rule differs from the plain choice only at an "event": a window whose rightmost minimum
    moved to a new position holding the same value while the previous selection is still in the
    window. Without events the plain selection is the robust one; with them, we follow the rule
    sequentially from each event, jumping over runs of windows that keep the same selection,
    until the robust choice falls back onto the plain one.

    The windows may come from several documents (``fingerprint.batch``): window ``j`` starts at
    ``h[starts[j]]`` (default ``j``: one document), and ``ends`` lists, ascending, the index one
    past each document's last window (default: one document, ``len(r)``). A document's windows
    are consecutive, and consecutive windows of one document start one hash apart. The rule never
    looks across a document boundary: a selection lies in its window's document, so it is never
    in the next document's windows.
    """
    nw = r.shape[0]
    if nw < 2:
        return r
    moved = r[1:] != r[:-1]
    moved &= m[1:] == m[:-1]
    if not moved.any():
        return r
    if starts is None:
        starts = np.arange(nw, dtype=np.int64)
    events = np.flatnonzero(moved & (r[:-1] >= starts[1:])) + 1
    if events.size == 0:
        return r
    if ends is None:
        ends = np.array([nw], dtype=np.int64)
    s = r.copy()
    ev_i = 0
    while ev_i < events.size:
        pos = int(events[ev_i])
        prev = int(s[pos - 1])
        # the windows of pos's document end at ``stop``; those from pos on that hold ``prev``
        # end at ``pos + prev - starts[pos] + 1``
        stop = int(ends[np.searchsorted(ends, pos, side="right")])
        while pos < stop:
            first = int(starts[pos])
            val = m[pos]
            if prev >= first and h[prev] == val:
                # keep ``prev`` while it stays in the window and stays the minimum
                last = min(pos + prev - first + 1, stop)
                stretch = m[pos:last] != val
                end = pos + int(np.argmax(stretch)) if stretch.any() else last
                s[pos:end] = prev
                pos = end
            else:
                s[pos] = r[pos]
                pos += 1
                break  # back in step with the plain selection until the next event
        ev_i = int(np.searchsorted(events, pos, side="left"))
    return s


@dataclass(frozen=True)
class Fingerprints:
    """Selected fingerprints of one document: hash, k-gram index, original-text span."""

    hash: np.ndarray  # int64
    pos: np.ndarray  # int64, index of the k-gram in the normalized units
    start: np.ndarray  # int64, original offset where the k-gram begins
    stop: np.ndarray  # int64, original offset where the k-gram ends (exclusive)

    def __len__(self) -> int:
        return int(self.hash.shape[0])


def select(h: np.ndarray, selection: str, w: int, m: int = 1) -> np.ndarray:
    """Indices of the hashes kept as fingerprints.

    ``winnow``: robust winnowing with window ``w`` (the default; guarantees every shared passage
    of w + k - 1 units is found, density about 2/(w+1)). ``all``: every k-gram (Broder's full
    shingling). ``mod``: the hashes that are 0 mod ``m`` (Broder's MOD_m, Manber's scheme; an
    unbiased sample of expected density 1/m, but no guarantee for any passage).
    """
    if selection == "winnow":
        return winnow(h, w)
    if selection == "all":
        return np.arange(h.shape[0], dtype=np.int64)
    if selection == "mod":
        if m < 1:
            raise ValueError("m must be at least 1")
        return np.flatnonzero(h.view(_U64) % _U64(m) == 0)
    raise ValueError(f"unknown selection {selection!r}")


def fingerprint(doc, k: int, w: int, salt: int = 0, robust: bool = True,
                selection: str = "winnow", m: int = 1) -> Fingerprints:
    """Fingerprints of a normalized document (``normalize.units.Normalized``: unit ids, and each
    unit's start and stop in the original text): its k-gram hashes, selected by ``selection``."""
    h = kgram_hashes(doc.units, k, salt)
    sel = winnow(h, w, robust=robust) if selection == "winnow" else select(h, selection, w, m)
    return Fingerprints(hash=h[sel], pos=sel, start=doc.start[sel], stop=doc.stop[sel + (k - 1)])
