"""The code tokenizer's last passes, compiled (numba): numbers joined, then tokens from the
classified characters.

``normalize.code`` finds comments and string literals with one regular expression, blanks them
and marks which characters are word characters and white space (numpy); then the numpy path
splits the word runs out, hashes each word, looks the keywords up, picks out the operator
characters and merges the two kinds of token by position: about fifteen passes over the text and
a sort. ``tokens`` does all of that in one loop over the characters, with the same hash
(``hashing.segment_hashes``: the polynomial of the mixed code points, finalized by ``fmix64``)
and the same token units, spans and order, bit for bit (``tests/normalize/test_code_kernel.py``).
Before it, ``join_numbers`` marks the punctuation inside number literals (``3.14``, ``1e-9``,
``1'000``) as word characters, as ``code._join_number_punctuation`` does with a dozen numpy
passes per step: one loop per step, the same marks.

Imported only through ``normalize.code`` when ``add``'s compiled kernels are loaded
(``fingerprint.compiled``): the workers of an add big enough to pay for numba.
"""
from __future__ import annotations

from functools import lru_cache

import numba
import numpy as np

from ..fingerprint.hashing import BASE, SEGMENT_SALT, mix_table
from ..fingerprint.kernels import fmix, mix_unit

__all__ = ["tokens", "join_numbers"]

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


def join_numbers(cps: np.ndarray, is_digit: np.ndarray, is_word: np.ndarray, syn: dict) -> None:
    """``code._join_number_punctuation`` in one compiled pass per step (digit quotes, points,
    exponent signs), the same marks, bit for bit: the punctuation inside number literals marked as
    word characters in ``is_word`` (in place), by the rules of the language's ``syn``."""
    _join(np.ascontiguousarray(cps, dtype=np.uint32), np.ascontiguousarray(is_digit, dtype=np.bool_), is_word,
          bool(syn.get("digit_quote", False)), bool(syn.get("hex_float", False)),
          bool(syn.get("dot_exponent", False)), _suffix_table(syn.get("dot_suffix", "")))


@lru_cache(maxsize=None)
def _suffix_table(letters: str) -> np.ndarray:
    """Which code points below 129 are among ``letters`` (ASCII; 128, for any above, never)."""
    table = np.zeros(129, dtype=np.bool_)
    table[[ord(c) for c in letters]] = True
    return table


@numba.njit(cache=True, nogil=True)
def _digit(c):
    return c >= 48 and c <= 57


@numba.njit(cache=True, nogil=True)
def _hex_digit(c):
    return (c >= 48 and c <= 57) or (c >= 97 and c <= 102) or (c >= 65 and c <= 70)


@numba.njit(cache=True, nogil=True)
def _head(word, i):
    """The start of the run of word characters that holds ``i``."""
    while i > 0 and word[i - 1]:
        i -= 1
    return i


@numba.njit(cache=True, nogil=True)
def _is_hex_word(cps, head):
    """Whether the word starting at ``head`` starts with ``0x`` or ``0X``."""
    second = cps[min(head + 1, cps.shape[0] - 1)]
    return cps[head] == 48 and (second == 120 or second == 88)


@numba.njit(cache=True, nogil=True)
def _join(cps, is_digit, is_word, digit_quote, hex_float, dot_exponent,
          suffix):  # pragma: no cover - compiled; its output is tested
    n = cps.shape[0]
    # a quote between digits of a number (1'000): decided on the words as they were before
    if digit_quote and n > 2:
        word = is_word.copy()
        for q in range(1, n - 1):
            if cps[q] == 39 and word[q - 1] and word[q + 1] and _digit(cps[_head(word, q - 1)]):
                is_word[q] = True
    # points: each decided on the words as they were after the quotes
    word = is_word.copy()
    for d in range(n):
        if cps[d] != 46:
            continue
        after = cps[d + 1] if d + 1 < n else 32
        then = cps[d + 2] if d + 2 < n else 32
        third = cps[d + 3] if d + 3 < n else 32
        prev = cps[d - 1] if d >= 1 else 32
        prev_word = word[d - 1] if d >= 1 else False
        prev_digit = _digit(prev)
        join = _digit(after) and (prev_digit or not prev_word) and prev != 46
        ends = not (word[d + 1] if d + 1 < n else False) and after != 46
        if dot_exponent and (after == 101 or after == 69):
            ends = ends or _digit(then) or ((then == 43 or then == 45) and _digit(third))
        if suffix[min(after, 128)] and not (word[d + 2] if d + 2 < n else False):
            ends = True
        join = join or (prev_digit and ends)
        if join and prev_digit:  # "1.5" and "2." join, "x1.5" and "x2." do not
            join = _digit(cps[_head(word, d - 1)])
        elif hex_float and not join and (_hex_digit(prev) or prev == 120 or prev == 88) \
                and (_hex_digit(after) or after == 112 or after == 80):  # 0x1.8p3, 0xA.Bp1, 0x.8p1
            head = _head(word, d - 1)
            join = _is_hex_word(cps, head) and head + 1 < d
        if join:
            is_word[d] = True
    # the sign of an exponent: decided on the words as they were after the points
    if n > 2:
        word = is_word.copy()
        for s in range(1, n - 1):
            c, p = cps[s], cps[s - 1]
            if (c != 43 and c != 45) or not is_digit[s + 1]:
                continue
            e = p == 101 or p == 69
            if not (e or (hex_float and (p == 112 or p == 80))):
                continue
            head = _head(word, s - 1)
            stop = s - 1
            while stop < n and word[stop]:
                stop += 1
            numeric = _digit(cps[head]) or cps[head] == 46
            hexadecimal = _is_hex_word(cps, head)
            exponent = (numeric and not hexadecimal) if e else hexadecimal
            if stop == s and exponent:
                is_word[s] = True
