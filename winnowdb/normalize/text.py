"""The ``text`` normalizer: the Winnowing paper's first step.

Case and accents are folded and everything that is not a letter or a digit (white space,
punctuation, symbols) is removed, so "Run, run!" and "runrun" compare equal. Each kept character
remembers its offset in the original string.
"""
from __future__ import annotations

import numpy as np

from .fold import folded_columns, single_folds
from .units import Normalized, code_points

__all__ = ["normalize_text", "text_units"]


def normalize_text(text: str) -> Normalized:
    """Fold case and accents, drop everything but letters and digits; keep original offsets.

    A character that folds to several letters ("ß") gives several units, all mapped back to it.
    """
    cps = code_points(text)
    folded = single_folds(cps)  # fast path (nearly all text): one table lookup per character
    if folded is not None:
        keep = np.flatnonzero(folded)
        return Normalized(units=folded[keep].astype(np.uint64), start=keep, stop=keep + 1)
    cols = folded_columns(cps)
    counts = cols[0]
    keep = np.flatnonzero(counts)  # int64 offsets of kept characters
    if not (counts[keep] > 1).any():
        return Normalized(units=cols[1, keep].astype(np.uint64), start=keep, stop=keep + 1)
    reps = counts[keep].astype(np.int64)
    src = np.repeat(keep, reps)  # original offset of every unit
    first = np.repeat(np.cumsum(reps) - reps, reps)
    j = np.arange(src.shape[0]) - first  # which letter of its character's expansion
    units = cols[1 + j, src].astype(np.uint64)
    return Normalized(units=units, start=src, stop=src + 1)


#: folded unit of each ASCII byte for ``normalize_text`` (a letter lower-cased, a digit itself,
#: anything else 0 = dropped); see ``text_units``
_ASCII_FOLD = np.array([ord(chr(c).lower()) if chr(c).isalnum() else 0 for c in range(128)], dtype=np.uint8)


def text_units(text: str) -> np.ndarray:
    """``normalize_text(text).units`` without the offsets (the simhash features need only the
    units): for ASCII text, one table lookup per byte."""
    if text.isascii():  # most code and much text
        folded = np.take(_ASCII_FOLD, np.frombuffer(text.encode("ascii"), dtype=np.uint8))
        return folded[folded != 0]
    return normalize_text(text).units
