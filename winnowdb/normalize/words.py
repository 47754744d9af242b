"""The ``words`` normalizer: Broder's canonical token sequence, each word one unit."""
from __future__ import annotations

import re

import numpy as np

from ..fingerprint.hashing import segment_hashes
from .fold import combining_marks, folded_columns
from .units import Normalized, code_points, empty

__all__ = ["normalize_words"]

_TAG = None


def normalize_words(text: str) -> Normalized:
    """Broder's canonical token sequence: markup stripped, each word (a maximal run of letters,
    digits and combining marks) one unit, identified by a 64-bit hash of its folded letters --
    folded as ``normalize_text`` folds them, so "Straße" is "strasse", "ﬁnal" is "final" and a
    decomposed "café" one word "cafe". A k-gram of these units is one of Broder's w-word shingles.
    """
    global _TAG
    cps = code_points(text)
    cols = folded_columns(cps)
    counts = cols[0].astype(np.int64)  # letters each character folds to (0: not a letter or digit)
    in_word = counts > 0
    in_word |= combining_marks(cps)  # they fold to nothing but belong to the word around them
    if "<" in text:  # strip markup: characters inside <...> tags are not words
        _TAG = _TAG or re.compile(r"<[^<>]{0,2000}>")
        spans = [(m.start(), m.end()) for m in _TAG.finditer(text)]
        if spans:
            delta = np.zeros(cps.shape[0] + 1, dtype=np.int32)
            st = np.array(spans, dtype=np.int64)
            np.add.at(delta, st[:, 0], 1)
            np.add.at(delta, st[:, 1], -1)
            tagged = np.cumsum(delta[:-1]) > 0
            in_word[tagged] = False
            counts[tagged] = 0
    edges = np.diff(np.concatenate(([False], in_word, [False])).astype(np.int8))
    starts = np.flatnonzero(edges == 1)
    stops = np.flatnonzero(edges == -1)
    # every folded letter in text order (a character folding to several gives them all)
    letter_at = np.concatenate(([0], np.cumsum(counts)))  # index of a character's first letter
    keep = np.flatnonzero(counts)
    if int(counts.max(initial=0)) <= 1:
        letters = cols[1, keep]
    else:
        reps = counts[keep]
        j = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)
        letters = cols[1 + j, np.repeat(keep, reps)]
    lo, hi = letter_at[starts], letter_at[stops]
    real = hi > lo  # a run of combining marks alone is not a word
    starts, stops, lo, hi = starts[real], stops[real], lo[real], hi[real]
    if starts.size == 0:
        return empty()
    return Normalized(units=segment_hashes(letters.astype(np.uint32), lo, hi), start=starts, stop=stops)
