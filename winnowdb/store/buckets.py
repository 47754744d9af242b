"""Hash buckets: the ranges of hash values an add stores (and counts statistics for) one at a time.

Winnowing keeps the minimum hash of each window, so kept hashes are far from uniform: with the
default settings about 10% of them fall in the lowest 1/64 of the signed 64-bit range and almost
none are positive. Buckets of equal width (the top 6 bits) were therefore very unequal: one held
as many rows as the 40 emptiest together, and an add's transaction for it grew with the add.

``BUCKETS`` ranges of signed hashes, ``BOUNDS[p] <= hash < BOUNDS[p + 1]``, cut where a model of
the kept hashes' distribution puts 1/64 of them each: ``1 - (1 - x) ** SKEW`` of a hash's position
``x`` in the signed range (window minima of w hashes crowd the low end about as the minimum of
``(w + 1) / 2`` uniform values would; ``SKEW`` 5 sits between code's w 8 and prose's w 12, and
keeps the fullest bucket within 1.5x the mean for both), rounded to a multiple of 2**48 from the
smallest hash so that a hash's top 16 bits give its bucket (one table lookup). Any cut is correct
(the buckets cover every hash once, in order); a good one keeps them near equal.
"""
from __future__ import annotations

import sys
from functools import lru_cache
from typing import TYPE_CHECKING

__all__ = ["BUCKETS", "BOUNDS", "SKEW", "SPAN_ROWS", "bucket_of", "hash_range", "span_range", "spans", "sort_key"]

#: how many buckets
BUCKETS = 64
#: the exponent of the model of kept hashes (see the module docstring)
SKEW = 5.0
_MIN = -(1 << 63)


def _bounds() -> list[int]:
    cuts = [_MIN + (int((1 << 16) * (1.0 - (1.0 - p / BUCKETS) ** (1.0 / SKEW))) << 48) for p in range(BUCKETS)]
    out = cuts + [1 << 63]
    assert all(a < b for a, b in zip(out, out[1:]))
    return out


#: BOUNDS[p] <= hash < BOUNDS[p + 1] for bucket p (Python ints; the last is 2**63)
BOUNDS = _bounds()

if TYPE_CHECKING:
    import numpy as np


@lru_cache(maxsize=1)
def _table() -> np.ndarray:
    """The bucket of each value of a hash's top 16 bits (as an offset from the smallest hash):
    every cut is a multiple of 2**48 from it, so those bits decide the bucket."""
    import numpy as np

    starts = np.array([(b - _MIN) >> 48 for b in BOUNDS[1:-1]], dtype=np.int64)
    return np.searchsorted(starts, np.arange(1 << 16), side="right").astype(np.uint8)


def bucket_of(hashes: np.ndarray) -> np.ndarray:
    """The bucket (0 .. BUCKETS - 1, uint8) of each signed 64-bit hash."""
    import numpy as np

    h = np.ascontiguousarray(hashes, dtype=np.int64)
    if sys.byteorder == "little":  # the top 16 bits of each hash, without shifting 64-bit values
        top = h.view(np.uint16)[3::4] ^ np.uint16(0x8000)
    else:
        top = ((h.view(np.uint64) >> np.uint64(48)) ^ np.uint64(0x8000)).astype(np.uint16)
    return _table()[top]


def hash_range(p: int) -> tuple[int, int]:
    """The smallest and largest signed hash of bucket ``p``."""
    return BOUNDS[p], BOUNDS[p + 1] - 1


def span_range(span: tuple[int, int]) -> tuple[int, int]:
    """The smallest and largest signed hash of the consecutive buckets ``first..last`` (``span``)."""
    first, last = span
    return BOUNDS[first], BOUNDS[last + 1] - 1


#: an add stores its rows (and counts their statistics) a span of consecutive buckets at a time,
#: each span about this many rows: a transaction each, so DuckDB never holds a big add's rows in
#: memory at once (from 32 million rows on, a bucket per span, as before spans), and a small add
#: is not cut into 64 statements of each kind (the standard library's 350,000 rows: one span,
#: add + pairs 3.76 -> 3.19 s; a 10,000-document add holds 80 MB more: bench/RESULTS.md)
SPAN_ROWS = 500_000


def spans(rows: int) -> list[tuple[int, int]]:
    """The spans (first, last bucket) an add of ``rows`` rows is stored in: as few as keep each
    at about ``SPAN_ROWS`` rows (the buckets hold near-equal shares), at most one per bucket."""
    count = min(BUCKETS, max(1, -(-rows // SPAN_ROWS)))
    width = -(-BUCKETS // count)
    return [(first, min(first + width, BUCKETS) - 1) for first in range(0, BUCKETS, width)]


def sort_key(hashes: np.ndarray, p: int) -> np.ndarray:
    """A 16-bit key of bucket ``p``'s hashes, in their order: the top 16 bits of their offset in
    the bucket's range (sorting by it orders the rows by hash down to 1/65536 of the range)."""
    import numpy as np

    lo, hi = hash_range(p)
    shift = max(0, (hi - lo).bit_length() - 16)
    offset = np.asarray(hashes, dtype=np.int64).view(np.uint64) - np.uint64(lo % (1 << 64))
    return (offset >> np.uint64(shift)).astype(np.uint16)
