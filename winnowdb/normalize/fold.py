"""How characters fold: the lookup tables every text normalizer shares.

A character folds to up to three letters or digits: compatibility forms decomposed and case
folded (NFKD, casefold, NFKD again, like Unicode's NFKC_Casefold), accents and other marks
dropped: "𝐇" -> "h", "É" -> "e", "ß" -> "ss", "ﬁ" -> "fi"; anything that is not a letter or a
digit folds to nothing. The table of the Basic Multilingual Plane is filled in lazily (the code
points a document uses, the first time they are seen), so start-up stays fast.

Also the Unicode categories normalizers need: combining marks (which belong to the letter
before them) and invisible format characters (which do not break a word).
"""
from __future__ import annotations

import unicodedata

import numpy as np

__all__ = ["MAX_EXPANSION", "EXPANDS", "single_folds", "single_table", "folded_columns", "combining_marks",
           "word_joiners", "joiner_table"]

MAX_EXPANSION = 3  # a character folds to at most this many letters ("ß" -> "ss", "ﬃ" -> "ffi")
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
    letters = tuple(ord(c) for c in folded if c.isalnum())[:MAX_EXPANSION]
    return letters or (cp,)


_BMP_DONE = np.zeros(0x10000, dtype=bool)  # which BMP entries of the table are filled in
#: the same table in one row, for the fast path: 0 = dropped, the folded letter, or EXPANDS for a
#: character that folds to several letters
_SINGLE = np.zeros(0x10000, dtype=np.uint32)
#: ``single_table``'s entry for a character that folds to several letters
EXPANDS = 0xFFFFFFFF


def _bmp_table(cps: np.ndarray | None = None) -> np.ndarray:
    """The fold table for the Basic Multilingual Plane, filled in lazily.

    Entries are computed the first time a code point is seen (so start-up stays fast); pass the
    document's BMP code points, or None to fill the whole table.
    """
    global _BMP_TABLE
    if _BMP_TABLE is None:
        _BMP_TABLE = np.zeros((1 + MAX_EXPANSION, 0x10000), dtype=np.uint32)
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
    assert table is not None  # _bmp_table makes it before it fills it
    for cp in cps.tolist():
        if not 0xD800 <= cp <= 0xDFFF:  # lone surrogates are never letters
            letters = _fold_char(cp)
            table[0, cp] = len(letters)
            for j, c in enumerate(letters):
                table[1 + j, cp] = c
            _SINGLE[cp] = letters[0] if len(letters) == 1 else EXPANDS if letters else 0
        _BMP_DONE[cp] = True


def single_folds(cps: np.ndarray) -> np.ndarray | None:
    """The fast path (nearly all text): for each code point its one folded letter or digit (0: it
    folds to nothing), by one table lookup; None when some code point is outside the BMP or
    folds to several letters (then use ``folded_columns``)."""
    if not cps.size or int(cps.max()) >= 0x10000:
        return None
    _bmp_table(cps)
    folded = np.take(_SINGLE, cps)
    return None if int(folded.max()) == EXPANDS else folded


def single_table(cps: np.ndarray) -> np.ndarray:
    """The fast path's whole table (one entry per BMP code point: 0 = dropped, the one folded
    letter, or ``EXPANDS``), filled in for the code points of ``cps`` (all in the BMP), for a
    caller that looks them up itself (``fingerprint.kernels``)."""
    _bmp_table(cps)
    return _SINGLE


def folded_columns(cps: np.ndarray) -> np.ndarray:
    """(4, n) table rows for every code point: count of folded letters, then the letters."""
    if cps.size == 0 or int(cps.max()) < 0x10000:
        return np.take(_bmp_table(cps), cps, axis=1)
    cols = np.zeros((1 + MAX_EXPANSION, cps.shape[0]), dtype=np.uint32)
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


def _category_table(name: str, test) -> np.ndarray:
    table = _CATEGORY_TABLES.get(name)
    if table is None:
        table = _CATEGORY_TABLES[name] = np.array([test(unicodedata.category(chr(c))) for c in range(0x10000)])
    return table


def _in_category(cps: np.ndarray, name: str, test) -> np.ndarray:
    """``test(unicodedata.category(ch))`` for each code point, from a BMP table built on first use."""
    table = _category_table(name, test)
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
    return _in_category(cps, "joiner", _joins)


def _joins(category: str) -> bool:
    return category[0] == "M" or category == "Cf"


def joiner_table() -> np.ndarray:
    """``word_joiners`` of every BMP code point, as one table (bool)."""
    return _category_table("joiner", _joins)
