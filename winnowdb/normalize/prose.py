"""The ``prose`` normalizer (the default for text in new indexes): letters folded as ``text``
folds them, and one unit for each run of characters between two words.

Each run of separators is one unit, a space or (when it holds punctuation) a mark, so
"therapist" and "the rapist" differ and a k-gram of prose is a more specific, word-aligned piece
of a sentence, while "year, after" and "year -- after" compare equal.
"""
from __future__ import annotations

import numpy as np

from .fold import EXPANDS, folded_columns, joiner_table, single_folds, single_table, word_joiners
from .units import Normalized, code_points

__all__ = ["normalize_prose", "PROSE_SPACE", "PROSE_MARK", "WHITESPACE", "SEPARATORS"]


#: the prose normalizer's unit for a run of separators (the characters between words) made of
#: white space only, and for one holding punctuation or symbols: neither is ever a folded letter
PROSE_SPACE, PROSE_MARK = 0x20, 0x2E
#: both separator units
SEPARATORS = (PROSE_SPACE, PROSE_MARK)
#: every code point that ``str.isspace`` calls white space (a test checks the list against it)
WHITESPACE = (*range(0x09, 0x0E), *range(0x1C, 0x21), 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
              0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
_SPACE_BMP = np.zeros(0x10000, dtype=bool)  # is each BMP code point white space (none above is)
_SPACE_BMP[list(WHITESPACE)] = True


def normalize_prose(text: str, *, strip_start: bool = True, strip_end: bool = True,
                    compiled: bool = False) -> Normalized:
    """Letters and digits folded as ``normalize_text`` folds them, and one unit for each run of
    separators between them: ``PROSE_MARK`` when the run holds punctuation or a symbol, else
    (white space only) ``PROSE_SPACE``; the unit spans the whole run. So "year, after" and
    "year -- after" compare equal, "year after" does not, and neither does "yearafter".

    Combining marks and invisible format characters (``word_joiners``: a soft hyphen, a
    zero-width joiner) belong to the letter before them, or to the run of separators they are
    in, and never make a run a mark: "inter\u00adnational" is one word. A run of
    white space at the very start or end of the text gives no unit (``strip_start`` /
    ``strip_end`` False: it does, for a piece cut out of a longer text), so a trailing newline
    changes nothing. ``compiled``: through the compiled loop of ``fingerprint.kernels`` when it is
    loaded (``fingerprint.compiled``), the same units.
    """
    cps = code_points(text)
    n = cps.shape[0]
    cols = None
    top = int(cps.max()) if n else 0
    if compiled and top < 0x10000:
        from ..fingerprint.compiled import compiled_kernels

        kernels = compiled_kernels()
        if kernels is not None:  # the fast path below, in one compiled loop
            got = kernels.prose_units(cps, single_table(cps), _SPACE_BMP, joiner_table() if top >= 0xAD else None,
                                      strip_start, strip_end, PROSE_SPACE, PROSE_MARK, EXPANDS)
            if got is not None:
                return Normalized(*got)
    single = single_folds(cps)  # fast path: one table lookup per character
    if single is None:
        cols = folded_columns(cps)
        sep = cols[0] == 0
        space = np.take(_SPACE_BMP, np.minimum(cps, 0xFFFF))
    else:
        space = np.take(_SPACE_BMP, cps)
        sep = single == 0
    punct = sep & ~space
    if top >= 0xAD:  # no mark or format character below U+00AD
        mark = word_joiners(cps)
        if mark.any():  # a mark or an invisible format character after a letter (and the
            # others after it) is part of that letter's word
            idx = np.arange(n)
            prev = np.maximum.accumulate(np.where(mark, -1, idx))  # last non-mark at or before
            attached = mark & (prev >= 0) & ~sep[np.maximum(prev, 0)]
            sep &= ~attached
            punct &= ~mark
    first = sep.copy()  # the first character of each run of separators: the run's unit
    first[1:] &= ~sep[:-1]
    last = sep.copy()
    last[:-1] &= ~sep[1:]
    starts, stops = np.flatnonzero(first), np.flatnonzero(last) + 1
    if starts.size:
        marked = np.zeros(starts.shape[0], dtype=bool)  # does each run hold punctuation or a symbol?
        marked[np.searchsorted(starts, np.flatnonzero(punct), side="right") - 1] = True
        keep = np.ones(starts.shape[0], dtype=bool)
        if strip_start and starts[0] == 0 and not marked[0]:
            keep[0] = False
        if strip_end and stops[-1] == n and not marked[-1]:
            keep[-1] = False
        if not keep.all():
            first[starts[~keep]] = False
            starts, stops, marked = starts[keep], stops[keep], marked[keep]
    if single is not None:  # one unit per letter, one per run
        src = np.flatnonzero((single != 0) | first)
        units = single[src].astype(np.uint64)
    else:
        assert cols is not None  # folded above, where single is None
        reps = cols[0].astype(np.int64)  # units of each character: its folded letters, or one
        reps[sep] = 0
        reps[starts] = 1
        src = np.repeat(np.arange(n, dtype=np.int64), reps)
        j = np.arange(src.shape[0]) - np.repeat(np.cumsum(reps) - reps, reps)  # which folded letter
        units = cols[1 + j, src].astype(np.uint64)
    stop = src + 1
    if starts.size:
        at = np.searchsorted(src, starts)  # where the runs' units are
        units[at] = np.where(marked, PROSE_MARK, PROSE_SPACE)
        stop[at] = stops
    return Normalized(units=units, start=src, stop=stop)

