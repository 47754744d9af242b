"""The hashing primitives: every unit and every k-gram gets a 64-bit hash, the same on every machine.

* ``splitmix64`` and ``fmix64`` (murmur3's finalizer) mix 64-bit values;
* ``mixed_units`` maps unit ids to pseudo-random 64-bit values (a table lookup for small ids);
* ``kgram_hashes``: the hash of every k-gram of units, a polynomial over the mixed units in base
  ``BASE`` computed from prefix sums (so the cost does not grow with k), finalized by ``fmix64``;
* ``segment_hashes``: one hash per segment of values (a word, a token).

Only fixed integer arithmetic modulo 2**64 is used (never Python's salted ``hash()``). Hashes are
returned as signed 64-bit integers (the same bits as the unsigned hash), so "minimum" means the
same thing here, in DuckDB and in Spark. ``settings.HASH_VERSION`` names this function: change
anything here and it must change too.
"""
from __future__ import annotations

import numpy as np

__all__ = ["splitmix64", "fmix64", "mix_table", "mixed_units", "kgram_hashes", "segment_hashes", "powers", "BASE",
           "SEGMENT_SALT"]

_U64 = np.uint64
#: the base of the k-gram polynomial: odd, so it is invertible modulo 2**64
BASE = _U64(0x9E3779B97F4A7C15 | 1)
_BASE_INV = _U64(pow(int(BASE), -1, 1 << 64))
#: the salt ``segment_hashes`` mixes its values with
SEGMENT_SALT = 0x5EED


def splitmix64(x: np.ndarray) -> np.ndarray:
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


def fmix64(x: np.ndarray) -> np.ndarray:
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


def mix_table(salt: int) -> np.ndarray:
    """``mixed_units`` of the ids below 2**16 (a cached table: unit ids are mostly code points)."""
    salt &= 0xFFFFFFFFFFFFFFFF
    table = _MIX_TABLES.get(salt)
    if table is None:
        table = _MIX_TABLES[salt] = splitmix64(np.arange(0x10000, dtype=_U64) ^ _U64(salt))
    return table


def mixed_units(units: np.ndarray, salt: int) -> np.ndarray:
    """Each unit id mixed (``splitmix64`` of id XOR salt) into a pseudo-random 64-bit value."""
    salt &= 0xFFFFFFFFFFFFFFFF
    if units.shape[0] and int(units.max()) < 0x10000:
        return np.take(mix_table(salt), units.astype(np.intp, copy=False))
    return splitmix64(units.astype(_U64, copy=False) ^ _U64(salt))


class _Powers:
    """Cached powers base**i and base**-i modulo 2**64, grown on demand."""

    def __init__(self) -> None:
        self.fwd = np.ones(1, dtype=_U64)
        self.inv = np.ones(1, dtype=_U64)

    def get(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        if self.fwd.shape[0] < n:
            size = max(n, 2 * self.fwd.shape[0], 4096)
            with np.errstate(over="ignore"):
                f = np.full(size, BASE, dtype=_U64)
                f[0] = 1
                i = np.full(size, _BASE_INV, dtype=_U64)
                i[0] = 1
                self.fwd = np.cumprod(f, dtype=_U64)
                self.inv = np.cumprod(i, dtype=_U64)
        return self.fwd[:n], self.inv[:n]


_POWERS = _Powers()


def powers(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(BASE**i, BASE**-i) modulo 2**64 for i < n, as uint64 arrays (cached)."""
    return _POWERS.get(n)


def kgram_hashes(units: np.ndarray, k: int, salt: int = 0) -> np.ndarray:
    """64-bit hashes (as int64) of every k-gram of ``units``: ``len(units) - k + 1`` values."""
    if k < 1:
        raise ValueError("k must be at least 1")
    n = int(units.shape[0])
    if n < k:
        return np.empty(0, dtype=np.int64)
    x = mixed_units(units, salt)
    fwd, inv = _POWERS.get(n)
    with np.errstate(over="ignore"):
        prefix = np.empty(n + 1, dtype=_U64)
        prefix[0] = 0
        np.cumsum(x * fwd, dtype=_U64, out=prefix[1:])
        poly = (prefix[k:] - prefix[: n - k + 1]) * inv[: n - k + 1]
        h = fmix64(poly ^ _U64(k))
    return h.view(np.int64)


def segment_hashes(values: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """A 64-bit hash (uint64) of each segment ``values[starts[i]:stops[i]]`` (e.g. each word)."""
    n = int(values.shape[0])
    x = mixed_units(values, SEGMENT_SALT)
    fwd, inv = _POWERS.get(n + 1)
    with np.errstate(over="ignore"):
        prefix = np.empty(n + 1, dtype=_U64)
        prefix[0] = 0
        np.cumsum(x * fwd[:n], dtype=_U64, out=prefix[1:])
        poly = (prefix[stops] - prefix[starts]) * inv[starts]
        return fmix64(poly ^ (stops - starts).astype(_U64))
