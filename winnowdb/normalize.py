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

__all__ = ["Normalized", "normalize_text", "normalize_words", "line_starts", "offsets_to_lines"]


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


_BMP_TABLE: np.ndarray | None = None
_ASTRAL_CACHE: dict[int, int] = {}


def _fold_char(cp: int) -> int:
    """Folded code point of one character, or 0 when the character is dropped."""
    ch = chr(cp)
    if not ch.isalnum():
        return 0
    folded = unicodedata.normalize("NFKD", ch.casefold())
    for c in folded:
        if c.isalnum():
            return ord(c)
    return cp


def _bmp_table() -> np.ndarray:
    global _BMP_TABLE
    if _BMP_TABLE is None:
        table = np.zeros(0x10000, dtype=np.uint32)
        for cp in range(0x10000):
            if 0xD800 <= cp <= 0xDFFF:
                continue  # lone surrogates are never letters
            table[cp] = _fold_char(cp)
        _BMP_TABLE = table
    return _BMP_TABLE


def code_points(text: str) -> np.ndarray:
    """The text's code points as a uint32 array (lone surrogates kept, never an error)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def normalize_text(text: str) -> Normalized:
    """Fold case and accents, drop everything but letters and digits; keep original offsets."""
    cps = code_points(text)
    table = _bmp_table()
    if cps.size == 0 or int(cps.max()) < 0x10000:
        folded = np.take(table, cps)
    else:
        bmp = cps < 0x10000
        folded = np.zeros(cps.shape[0], dtype=np.uint32)
        folded[bmp] = np.take(table, cps[bmp])
        for i in np.flatnonzero(~bmp):
            cp = int(cps[i])
            if cp not in _ASTRAL_CACHE:
                _ASTRAL_CACHE[cp] = _fold_char(cp)
            folded[i] = _ASTRAL_CACHE[cp]
    keep = np.flatnonzero(folded)  # int64 offsets of kept characters
    return Normalized(units=folded[keep].astype(np.uint64), start=keep, stop=keep + 1)


_TAG = None


def normalize_words(text: str) -> Normalized:
    """Broder's canonical token sequence: markup stripped, each word (a maximal run of letters and
    digits, case and accents folded) one unit, identified by a 64-bit hash of its folded letters.
    A k-gram of these units is one of Broder's w-word shingles.
    """
    global _TAG
    import re

    cps = code_points(text)
    table = _bmp_table()
    if cps.size == 0 or int(cps.max()) < 0x10000:
        folded = np.take(table, cps)
    else:
        folded = np.zeros(cps.shape[0], dtype=np.uint32)
        bmp = cps < 0x10000
        folded[bmp] = np.take(table, cps[bmp])
        for i in np.flatnonzero(~bmp):
            folded[i] = _ASTRAL_CACHE.setdefault(int(cps[i]), _fold_char(int(cps[i])))
    if "<" in text:  # strip markup: characters inside <...> tags are not words
        _TAG = _TAG or re.compile(r"<[^<>]{0,2000}>")
        spans = [(m.start(), m.end()) for m in _TAG.finditer(text)]
        if spans:
            delta = np.zeros(cps.shape[0] + 1, dtype=np.int32)
            st = np.array(spans, dtype=np.int64)
            np.add.at(delta, st[:, 0], 1)
            np.add.at(delta, st[:, 1], -1)
            folded[np.cumsum(delta[:-1]) > 0] = 0
    is_char = folded != 0
    edges = np.diff(np.concatenate(([False], is_char, [False])).astype(np.int8))
    starts = np.flatnonzero(edges == 1)
    stops = np.flatnonzero(edges == -1)
    if starts.size == 0:
        empty = np.empty(0, dtype=np.int64)
        return Normalized(np.empty(0, dtype=np.uint64), empty, empty)
    from .fingerprint import segment_hashes

    return Normalized(units=segment_hashes(folded, starts, stops), start=starts, stop=stops)


def line_starts(text: str) -> np.ndarray:
    """Offsets where each line of ``text`` begins (line 1 begins at 0)."""
    cps = code_points(text)
    return np.concatenate(([0], np.flatnonzero(cps == 10) + 1)).astype(np.int64)


def offsets_to_lines(starts: np.ndarray, offsets) -> np.ndarray:
    """1-based line numbers of character offsets, given ``line_starts`` of the text."""
    return np.searchsorted(starts, np.asarray(offsets, dtype=np.int64), side="right")
