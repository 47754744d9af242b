"""Normalize text into comparable units, keeping a map back to the original text.

The text normalizer follows the Winnowing paper's first step: case is folded, accents are
folded, and everything that is not a letter or a digit (white space, punctuation, symbols) is
removed, so "Run, run!" and "runrun" compare equal. The prose normalizer (the default for text
in new indexes) folds letters the same way but keeps where words end: each run of characters
between words is one unit, a space or (when it holds punctuation) a mark, so "therapist" and
"the rapist" differ and a k-gram of prose is a more specific, word-aligned piece of a sentence.
Each kept character remembers its offset in the
original string, so fingerprints and passages can always be shown in the original text.

Everything here is vectorized with numpy: a lookup table maps every code point to its folded
form (or 0 to drop it) and is built once per process.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

__all__ = ["Normalized", "normalize_text", "normalize_prose", "normalize_words", "combining_marks", "word_joiners",
           "line_starts", "offsets_to_lines", "PROSE_SPACE", "PROSE_MARK", "WHITESPACE"]


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


_CATEGORY_TABLES: dict[str, np.ndarray] = {}  # per predicate: its value for every BMP code point


def _in_category(cps: np.ndarray, name: str, test) -> np.ndarray:
    """``test(unicodedata.category(ch))`` for each code point, from a BMP table built on first use."""
    import unicodedata

    table = _CATEGORY_TABLES.get(name)
    if table is None:
        table = _CATEGORY_TABLES[name] = np.array([test(unicodedata.category(chr(c))) for c in range(0x10000)])
    out = np.zeros(cps.shape[0], dtype=bool)
    bmp = cps < 0x10000
    out[bmp] = table[cps[bmp]]
    astral = np.flatnonzero(~bmp)
    if astral.size:
        out[astral] = [test(unicodedata.category(chr(c))) for c in cps[astral].tolist()]
    return out


def combining_marks(cps: np.ndarray) -> np.ndarray:
    """For each code point, whether it is a combining mark (Unicode category M*: accents written
    after their letter, Indic vowel signs): it belongs to the word of the letter before it."""
    if cps.size == 0 or int(cps.max()) < 0x300:  # no combining marks below U+0300
        return np.zeros(cps.shape[0], dtype=bool)
    return _in_category(cps, "mark", lambda cat: cat[0] == "M")


def word_joiners(cps: np.ndarray) -> np.ndarray:
    """For each code point, whether it belongs to the word it is written in: a combining mark
    (``combining_marks``) or an invisible format character (Unicode category Cf: the soft hyphen,
    zero-width joiners and spaces, the word joiner), which a reader does not see as a break."""
    if cps.size == 0 or int(cps.max()) < 0xAD:  # the soft hyphen is the first format character
        return np.zeros(cps.shape[0], dtype=bool)
    return _in_category(cps, "joiner", lambda cat: cat[0] == "M" or cat == "Cf")


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


#: the prose normalizer's unit for a run of separators (the characters between words) made of
#: white space only, and for one holding punctuation or symbols: neither is ever a folded letter
PROSE_SPACE, PROSE_MARK = 0x20, 0x2E
#: every code point that ``str.isspace`` calls white space (a test checks the list against it)
WHITESPACE = (*range(0x09, 0x0E), *range(0x1C, 0x21), 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
              0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
_SPACE_BMP = np.zeros(0x10000, dtype=bool)  # is each BMP code point white space (none above is)
_SPACE_BMP[list(WHITESPACE)] = True


def normalize_prose(text: str, *, strip_start: bool = True, strip_end: bool = True) -> Normalized:
    """Letters and digits folded as ``normalize_text`` folds them, and one unit for each run of
    separators between them: ``PROSE_MARK`` when the run holds punctuation or a symbol, else
    (white space only) ``PROSE_SPACE``; the unit spans the whole run. So "year, after" and
    "year -- after" compare equal, "year after" does not, and neither does "yearafter".

    Combining marks and invisible format characters (``word_joiners``: a soft hyphen, a
    zero-width joiner) belong to the letter before them, or to the run of separators they are
    in, and never make a run a mark: "inter\u00adnational" is one word. A run of
    white space at the very start or end of the text gives no unit (``strip_start`` /
    ``strip_end`` False: it does, for a piece cut out of a longer text), so a trailing newline
    changes nothing.
    """
    cps = code_points(text)
    n = cps.shape[0]
    cols = single = None
    top = int(cps.max()) if n else 0
    if n and top < 0x10000:  # fast path: one table lookup per character
        _bmp_table(cps)
        single = np.take(_SINGLE, cps)
        if int(single.max()) == _EXPANDS:
            single = None
    if single is None:
        cols = _folded_columns(cps)
        sep = cols[0] == 0
        space = np.take(_SPACE_BMP, np.minimum(cps, 0xFFFF))
    else:
        sep = single == 0
        space = np.take(_SPACE_BMP, cps)
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
