"""Hash every k-gram and winnow: the Winnowing paper's fingerprinting, vectorized with numpy.

* ``kgram_hashes``: a 64-bit hash of every k-gram of units. Each unit is first mixed into a
  pseudo-random 64-bit value (splitmix64), the k-gram is a polynomial over those values computed
  from prefix sums (so the cost does not grow with k), and the result goes through the murmur3
  finalizer. Only fixed integer arithmetic modulo 2**64 is used: the hashes are the same in every
  process and on every machine (never Python's salted ``hash()``).
* ``winnow``: robust winnowing (the paper's Definition 3). In each window of ``w`` consecutive
  hashes the minimum is selected; ties are broken toward the hash selected for the previous window
  when it is still in the window, otherwise toward the rightmost minimum. The sliding minimum is
  computed in O(n) with the van Herk / Gil-Werman block method; the sequential tie rule only runs
  over the (rare) stretches where it changes the plain rightmost-minimum choice.
* ``fingerprint``: both, over a ``Normalized`` document, giving each fingerprint its hash, its
  k-gram index and the k-gram's span in the original text.

Hashes are compared and stored as signed 64-bit integers (the same bits as the unsigned hash),
so "minimum" means the same thing here, in DuckDB and in Spark.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .normalize import Normalized

__all__ = ["Fingerprints", "kgram_hashes", "segment_hashes", "winnow", "select", "fingerprint",
           "HASH_VERSION", "SELECTIONS"]

#: how fingerprints are chosen among the k-gram hashes (fixed per index)
SELECTIONS = ("winnow", "all", "mod")

#: Bumped whenever the hash function changes; stored in every index's settings.
HASH_VERSION = "splitmix-poly-fmix64-v1"

_U64 = np.uint64
_BASE = _U64(0x9E3779B97F4A7C15 | 1)  # odd, so it is invertible modulo 2**64
_BASE_INV = _U64(pow(int(_BASE), -1, 1 << 64))
_I64_MAX = np.iinfo(np.int64).max


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 of each uint64 (a new array; ``x`` is left alone), computed in place on one
    copy with one scratch array: it runs over every character of every document (simhash)."""
    with np.errstate(over="ignore"):
        z = x + _U64(0x9E3779B97F4A7C15)
        t = np.empty_like(z)
        np.right_shift(z, _U64(30), out=t)
        z ^= t
        z *= _U64(0xBF58476D1CE4E5B9)
        np.right_shift(z, _U64(27), out=t)
        z ^= t
        z *= _U64(0x94D049BB133111EB)
        np.right_shift(z, _U64(31), out=t)
        z ^= t
        return z


def _fmix64(x: np.ndarray) -> np.ndarray:
    """murmur3's 64-bit finalizer of each uint64 (a new array; ``x`` is left alone), in place on
    one copy with one scratch array."""
    with np.errstate(over="ignore"):
        t = x >> _U64(33)
        z = x ^ t
        z *= _U64(0xFF51AFD7ED558CCD)
        np.right_shift(z, _U64(33), out=t)
        z ^= t
        z *= _U64(0xC4CEB9FE1A85EC53)
        np.right_shift(z, _U64(33), out=t)
        z ^= t
        return z


_MIX_TABLES: dict[int, np.ndarray] = {}


def _mixed_units(units: np.ndarray, salt: int) -> np.ndarray:
    """Each unit id mixed into a pseudo-random 64-bit value (a table lookup for small ids)."""
    salt &= 0xFFFFFFFFFFFFFFFF
    if units.shape[0] and int(units.max()) < 0x10000:
        table = _MIX_TABLES.get(salt)
        if table is None:
            table = _MIX_TABLES[salt] = _splitmix64(np.arange(0x10000, dtype=_U64) ^ _U64(salt))
        return np.take(table, units.astype(np.intp, copy=False))
    return _splitmix64(units.astype(_U64, copy=False) ^ _U64(salt))


class _Powers:
    """Cached powers base**i and base**-i modulo 2**64, grown on demand."""

    def __init__(self) -> None:
        self.fwd = np.ones(1, dtype=_U64)
        self.inv = np.ones(1, dtype=_U64)

    def get(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        if self.fwd.shape[0] < n:
            size = max(n, 2 * self.fwd.shape[0], 4096)
            with np.errstate(over="ignore"):
                f = np.full(size, _BASE, dtype=_U64)
                f[0] = 1
                i = np.full(size, _BASE_INV, dtype=_U64)
                i[0] = 1
                self.fwd = np.cumprod(f, dtype=_U64)
                self.inv = np.cumprod(i, dtype=_U64)
        return self.fwd[:n], self.inv[:n]


_POWERS = _Powers()


def kgram_hashes(units: np.ndarray, k: int, salt: int = 0) -> np.ndarray:
    """64-bit hashes (as int64) of every k-gram of ``units``: ``len(units) - k + 1`` values."""
    if k < 1:
        raise ValueError("k must be at least 1")
    n = int(units.shape[0])
    if n < k:
        return np.empty(0, dtype=np.int64)
    x = _mixed_units(units, salt)
    fwd, inv = _POWERS.get(n)
    with np.errstate(over="ignore"):
        prefix = np.empty(n + 1, dtype=_U64)
        prefix[0] = 0
        np.cumsum(x * fwd, dtype=_U64, out=prefix[1:])
        poly = (prefix[k:] - prefix[: n - k + 1]) * inv[: n - k + 1]
        h = _fmix64(poly ^ _U64(k))
    return h.view(np.int64)


def segment_hashes(values: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """A 64-bit hash (uint64) of each segment ``values[starts[i]:stops[i]]`` (e.g. each word)."""
    n = int(values.shape[0])
    x = _mixed_units(values, 0x5EED)
    fwd, inv = _POWERS.get(n + 1)
    with np.errstate(over="ignore"):
        prefix = np.empty(n + 1, dtype=_U64)
        prefix[0] = 0
        np.cumsum(x * fwd[:n], dtype=_U64, out=prefix[1:])
        poly = (prefix[stops] - prefix[starts]) * inv[starts]
        return _fmix64(poly ^ (stops - starts).astype(_U64))


def _rightmost_window_minima(h: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
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
    r, m = _rightmost_window_minima(h, w)
    if robust:
        r = _robust_ties(h, r, m)
    keep = np.empty(r.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(r[1:], r[:-1], out=keep[1:])
    return r[keep]  # selections move forward monotonically, so this is sorted and distinct


def _robust_ties(h: np.ndarray, r: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Apply Definition 3's tie rule to plain rightmost-minimum selections ``r``.

    The rule differs from the plain choice only at an "event": a window whose rightmost minimum
    moved to a new position holding the same value while the previous selection is still in the
    window. Without events the plain selection is the robust one; with them, we follow the rule
    sequentially from each event, jumping over runs of windows that keep the same selection,
    until the robust choice falls back onto the plain one.
    """
    nw = r.shape[0]
    moved = r[1:] != r[:-1]
    moved &= m[1:] == m[:-1]
    if not moved.any():
        return r
    events = np.flatnonzero(moved & (r[:-1] >= np.arange(1, nw))) + 1
    if events.size == 0:
        return r
    s = r.copy()
    ev_i = 0
    while ev_i < events.size:
        pos = int(events[ev_i])
        prev = int(s[pos - 1])
        while pos < nw:
            val = m[pos]
            if prev >= pos and h[prev] == val:
                # keep ``prev`` while it stays in the window and stays the minimum
                stretch = m[pos : prev + 1] != h[prev]
                end = pos + int(np.argmax(stretch)) if stretch.any() else prev + 1
                end = min(end, nw)
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


def fingerprint(doc: Normalized, k: int, w: int, salt: int = 0, robust: bool = True,
                selection: str = "winnow", m: int = 1) -> Fingerprints:
    """Fingerprints of a normalized document: its k-gram hashes, selected by ``selection``."""
    h = kgram_hashes(doc.units, k, salt)
    sel = winnow(h, w, robust=robust) if selection == "winnow" else select(h, selection, w, m)
    return Fingerprints(hash=h[sel], pos=sel, start=doc.start[sel], stop=doc.stop[sel + (k - 1)])
