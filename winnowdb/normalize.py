"""Normalize text into comparable units, keeping a map back to the original text.

The text normalizer follows the Winnowing paper's first step: case is folded, accents are
folded, and everything that is not a letter or a digit (white space, punctuation, symbols) is
removed, so "Run, run!" and "runrun" compare equal. Each kept character remembers its offset in the
original string, so fingerprints and passages can always be shown in the original text.

Everything here is vectorized with numpy: a lookup table maps every code point to its folded
form (or 0 to drop it) and is built once per process.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

__all__ = ["Normalized", "normalize_text", "normalize_words", "combining_marks", "line_starts", "offsets_to_lines"]


@dataclass(frozen=True)
class Normalized:
    """A document as a sequence of units (folded characters, or tokens for code).

    ``units[i]`` is the unit's integer id; ``start[i]``/``stop[i]`` are the original-text character
    offsets it came from (stop exclusive), so a k-gram of units i..i+k-1 spans the original
    text ``start[i]:stop[i+k-1]``.
    """

    units: np.ndarray  # uint64
    start: np.ndarray  # int64
    stop: np.ndarray  # int64

    def __len__(self) -> int:
        return int(self.units.shape[0])


_MAX_EXPANSION = 3  # a character folds to at most this many letters ("ß" -> "ss", "ﬃ" -> "ffi")
_BMP_TABLE: np.ndarray | None = None  # (4, 0x10000): number of folded letters, then up to 3 letters
_ASTRAL_CACHE: dict[int, tuple[int, ...]] = {}


def _fold_char(cp: int) -> tuple[int, ...]:
    """Folded letters of one character: () when dropped, else up to three code points.

    Compatibility forms are decomposed and case-folded (NFKD, casefold, NFKD again, like
    Unicode's NFKC_Casefold), accents and other marks dropped: "𝐇" -> "h", "É" -> "e",
    "ß" -> "ss", "ﬁ" -> "fi".
    """
    ch = chr(cp)
    if not ch.isalnum():
        return ()
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", ch).casefold())
    letters = tuple(ord(c) for c in folded if c.isalnum())[:_MAX_EXPANSION]
    return letters or (cp,)


_BMP_DONE = np.zeros(0x10000, dtype=bool)  # which BMP entries of the table are filled in
#: the same table in one row, for the fast path: 0 = dropped, the folded letter, or _EXPANDS for a
#: character that folds to several letters
_SINGLE = np.zeros(0x10000, dtype=np.uint32)
_EXPANDS = 0xFFFFFFFF


def _bmp_table(cps: np.ndarray | None = None) -> np.ndarray:
    """The fold table for the Basic Multilingual Plane, filled in lazily.

    Entries are computed the first time a code point is seen (so start-up stays fast); pass the
    document's BMP code points, or None to fill the whole table.
    """
    global _BMP_TABLE
    if _BMP_TABLE is None:
        _BMP_TABLE = np.zeros((1 + _MAX_EXPANSION, 0x10000), dtype=np.uint32)
        _fill(np.arange(0x250))  # ASCII and the Latin blocks, always needed
    if cps is None:
        _fill(np.flatnonzero(~_BMP_DONE))
    elif cps.size and int(cps.max()) >= 0x250:
        todo = cps[~np.take(_BMP_DONE, cps)]
        if todo.size:
            _fill(np.unique(todo))
    return _BMP_TABLE


def _fill(cps: np.ndarray) -> None:
    table = _BMP_TABLE
    for cp in cps.tolist():
        if not 0xD800 <= cp <= 0xDFFF:  # lone surrogates are never letters
            letters = _fold_char(cp)
            table[0, cp] = len(letters)
            for j, c in enumerate(letters):
                table[1 + j, cp] = c
            _SINGLE[cp] = letters[0] if len(letters) == 1 else _EXPANDS if letters else 0
        _BMP_DONE[cp] = True


def code_points(text: str) -> np.ndarray:
    """The text's code points as a uint32 array (lone surrogates kept, never an error)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _folded_columns(cps: np.ndarray) -> np.ndarray:
    """(4, n) table rows for every code point: count of folded letters, then the letters."""
    if cps.size == 0 or int(cps.max()) < 0x10000:
        return np.take(_bmp_table(cps), cps, axis=1)
    cols = np.zeros((1 + _MAX_EXPANSION, cps.shape[0]), dtype=np.uint32)
    bmp = cps < 0x10000
    cols[:, bmp] = np.take(_bmp_table(cps[bmp]), cps[bmp], axis=1)
    for i in np.flatnonzero(~bmp):
        cp = int(cps[i])
        letters = _ASTRAL_CACHE.get(cp)
        if letters is None:
            letters = _ASTRAL_CACHE[cp] = _fold_char(cp)
        cols[0, i] = len(letters)
        for j, c in enumerate(letters):
            cols[1 + j, i] = c
    return cols


_MARKS: np.ndarray | None = None  # is each BMP code point a combining mark (category M*)?


def combining_marks(cps: np.ndarray) -> np.ndarray:
    """For each code point, whether it is a combining mark (Unicode category M*: accents written
    after their letter, Indic vowel signs): it belongs to the word of the letter before it."""
    global _MARKS
    if cps.size == 0 or int(cps.max()) < 0x300:  # no combining marks below U+0300
        return np.zeros(cps.shape[0], dtype=bool)
    if _MARKS is None:
        import unicodedata

        _MARKS = np.array([unicodedata.category(chr(c))[0] == "M" for c in range(0x10000)], dtype=bool)
    out = np.zeros(cps.shape[0], dtype=bool)
    bmp = cps < 0x10000
    out[bmp] = _MARKS[cps[bmp]]
    astral = np.flatnonzero(~bmp)
    if astral.size:
        import unicodedata

        out[astral] = [unicodedata.category(chr(c))[0] == "M" for c in cps[astral].tolist()]
    return out


def normalize_text(text: str) -> Normalized:
    """Fold case and accents, drop everything but letters and digits; keep original offsets.

    A character that folds to several letters ("ß") gives several units, all mapped back to it.
    """
    cps = code_points(text)
    if cps.size and int(cps.max()) < 0x10000:
        # fast path (nearly all text): one table lookup per character, and a second one for the
        # kept characters only, when no character folds to several letters
        _bmp_table(cps)
        folded = np.take(_SINGLE, cps)
        if int(folded.max()) != _EXPANDS:
            keep = np.flatnonzero(folded)
            return Normalized(units=folded[keep].astype(np.uint64), start=keep, stop=keep + 1)
    cols = _folded_columns(cps)
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


_TAG = None


def normalize_words(text: str) -> Normalized:
    """Broder's canonical token sequence: markup stripped, each word (a maximal run of letters,
    digits and combining marks) one unit, identified by a 64-bit hash of its folded letters --
    folded as ``normalize_text`` folds them, so "Straße" is "strasse", "ﬁnal" is "final" and a
    decomposed "café" one word "cafe". A k-gram of these units is one of Broder's w-word shingles.
    """
    global _TAG
    import re

    cps = code_points(text)
    cols = _folded_columns(cps)
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
        empty = np.empty(0, dtype=np.int64)
        return Normalized(np.empty(0, dtype=np.uint64), empty, empty)
    from .fingerprint import segment_hashes

    return Normalized(units=segment_hashes(letters.astype(np.uint32), lo, hi), start=starts, stop=stops)


def line_starts(text: str) -> np.ndarray:
    """Offsets where each line of ``text`` begins (line 1 begins at 0)."""
    cps = code_points(text)
    return np.concatenate(([0], np.flatnonzero(cps == 10) + 1)).astype(np.int64)


def offsets_to_lines(starts: np.ndarray, offsets) -> np.ndarray:
    """1-based line numbers of character offsets, given ``line_starts`` of the text."""
    return np.searchsorted(starts, np.asarray(offsets, dtype=np.int64), side="right")
