"""The code tokenizer's last pass, compiled (numba): tokens from the classified characters.

``normalize.code`` finds comments and string literals with one regular expression, blanks them
and marks which characters are word characters and white space (numpy); then the numpy path
splits the word runs out, hashes each word, looks the keywords up, picks out the operator
characters and merges the two kinds of token by position: about fifteen passes over the text and
a sort. ``tokens`` does all of that in one loop over the characters, with the same hash
(``hashing.segment_hashes``: the polynomial of the mixed code points, finalized by ``fmix64``)
and the same token units, spans and order, bit for bit (``tests/normalize/test_code_kernel.py``).

Imported only through ``normalize.code`` when ``add``'s compiled kernels are loaded
(``fingerprint.compiled``): the workers of an add big enough to pay for numba.
"""
from __future__ import annotations

import numba
import numpy as np

from ..fingerprint.hashing import BASE, SEGMENT_SALT, mix_table
from ..fingerprint.kernels import fmix, mix_unit

__all__ = ["tokens"]

_U64 = np.uint64


def tokens(cps: np.ndarray, is_word: np.ndarray, is_space: np.ndarray, keywords: np.ndarray,
           string_starts: np.ndarray, string_stops: np.ndarray, ident: int, number: int,
           string: int, string_mark: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(units, start, stop) of the tokens of blanked code points ``cps``: each run of word
    characters is one token (its hash when it is one of ``keywords``, sorted word hashes; else
    ``number`` when it starts with a digit or a point, else ``ident``), and each character that is
    neither a word character nor white space is one (``string`` for ``string_mark``, else its code
    point). The token starting where a string literal starts (``string_starts``, ascending) spans
    to its stop."""
    return _tokens(np.ascontiguousarray(cps, dtype=np.uint32), np.ascontiguousarray(is_word, dtype=np.bool_),
                   np.ascontiguousarray(is_space, dtype=np.bool_), np.ascontiguousarray(keywords, dtype=_U64),
                   np.ascontiguousarray(string_starts, dtype=np.int64),
                   np.ascontiguousarray(string_stops, dtype=np.int64), mix_table(SEGMENT_SALT), _U64(SEGMENT_SALT),
                   _U64(ident), _U64(number), _U64(string), np.uint32(string_mark))


@numba.njit(cache=True, nogil=True)
def _is_keyword(keywords, h):
    lo, hi = 0, keywords.shape[0]
    while lo < hi:  # the first keyword hash not below h
        mid = (lo + hi) >> 1
        if keywords[mid] < h:
            lo = mid + 1
        else:
            hi = mid
    return lo < keywords.shape[0] and keywords[lo] == h


@numba.njit(cache=True, nogil=True)
def _tokens(cps, is_word, is_space, keywords, sstart, sstop, table, salt, ident, number, string,
            mark):  # pragma: no cover - compiled; its output is tested
    n = cps.shape[0]
    units = np.empty(n, np.uint64)
    start = np.empty(n, np.int64)
    stop = np.empty(n, np.int64)
    t = 0
    s = 0  # the next string literal that can start at or after i
    i = 0
    while i < n:
        if is_word[i]:
            j = i
            poly = _U64(0)
            p = _U64(1)
            while j < n and is_word[j]:
                poly += mix_unit(_U64(cps[j]), table, salt) * p
                p *= BASE
                j += 1
            h = fmix(poly ^ _U64(j - i))
            first = cps[i]
            if _is_keyword(keywords, h):
                units[t] = h
            elif (first >= 48 and first <= 57) or first == 46:
                units[t] = number
            else:
                units[t] = ident
            start[t] = i
            stop[t] = j
            t += 1
            i = j
            continue
        if not is_space[i]:
            units[t] = string if cps[i] == mark else _U64(cps[i])
            start[t] = i
            stop[t] = i + 1
            while s < sstart.shape[0] and sstart[s] < i:
                s += 1
            if s < sstart.shape[0] and sstart[s] == i:
                stop[t] = sstop[s]
            t += 1
        i += 1
    return units[:t].copy(), start[:t].copy(), stop[:t].copy()  # not views: n can be far above t
