"""Fingerprint huge documents in segments: bounded memory, the same fingerprints.

Normalizing and winnowing a whole document at once costs about 70 bytes of memory per character
(a 200 MB file needed 14 GB). Documents longer than ``HUGE_CHARS`` characters are instead
processed a slice at a time, and ``add`` writes each segment's fingerprints to the index as it
goes (one transaction for the whole document, so it is stored completely or not at all).

The result is the same as fingerprinting the whole document at once:

* Text is normalized in chunks of ``CHUNK_CHARS`` characters. The ``text`` normalizer folds each
  character on its own, so any cut gives the same units; for ``prose`` a cut is never placed
  inside the run of separators between two words (one unit), and only the document's own first
  and last runs of white space are dropped; for ``words`` a cut is placed on a character that is
  not a letter or digit and not inside a markup tag, so no word or tag is split.
* k-gram hashes depend only on their k units, so hashing overlapping slices of units gives the
  same hashes.
* Winnowing is continued across a segment boundary only at a window whose minimum is unique:
  there robust winnowing selects that minimum whatever it selected before, so the next segment
  can start afresh in step with the whole-document selection. (If no such window is found within
  ``SYNC_SEARCH`` windows -- a very long run of repeated text -- the cut is made anyway; the
  selections can then differ from whole-document winnowing in which of several equal hashes is
  picked, never in the winnowing guarantee. Likewise a ``words`` "word" of more than a million
  letters, or a ``prose`` run of separators that long, is split. ``SegmentStats.exact`` records
  either.)
* The normalized-text hash and the simhash are accumulated over the chunks.

Code files (tokenized per language) are not segmented; they use the whole-document path.
``ingest.huge`` stores a huge document from these segments, streaming.
"""
from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field
from typing import Iterator, Mapping

import numpy as np

from ..fingerprint.hashing import kgram_hashes
from ..fingerprint.simhash import FEATURE_GRAM, bit_votes, feature_hashes, simhash64, simhash_from_votes
from ..fingerprint.winnow import Fingerprints, select, winnow
from ..normalize.prose import normalize_prose
from ..normalize.text import normalize_text
from ..normalize.units import Normalized, units_bytes
from ..normalize.words import normalize_words
from ..settings import IndexSettings
from .document import choose_normalizer, set_off_edges, with_rows

__all__ = ["HUGE_CHARS", "SegmentStats", "is_huge", "iter_fingerprints", "fingerprint_segmented",
           "fingerprints_of", "segment_params", "text_family", "safe_cut", "prose_edges", "CHUNK_CHARS",
           "SEGMENT_UNITS", "SYNC_SEARCH"]

#: documents longer than this many characters are fingerprinted and stored in segments
HUGE_CHARS = 1 << 23
#: characters normalized per step
CHUNK_CHARS = 1 << 21
#: normalized units hashed and winnowed per step
SEGMENT_UNITS = 1 << 21
#: how many windows past a segment's nominal end are searched for one with a unique minimum
SYNC_SEARCH = 1 << 14
#: how far (characters) a ``words`` chunk cut may move to avoid splitting a word or a tag
_CUT_SEARCH = 1 << 20
_TAG_MAX = 2002  # longest markup tag normalize_words strips: <, up to 2000 characters, >


@dataclass
class SegmentStats:
    """What the segmented pass measured, complete once its generator is exhausted."""

    units: int = 0
    fingerprints: int = 0
    exact: bool = True
    width: int = 8  # bytes per unit of the digest (``settings.digest_width``)
    _digest: hashlib.blake2b = field(default_factory=lambda: hashlib.blake2b(digest_size=16))
    _ones: np.ndarray = field(default_factory=lambda: np.zeros(64, dtype=np.int64))
    _features: int = 0
    _short: list = field(default_factory=list)  # all text units while there are fewer than 4

    @property
    def normalized_hash(self) -> str:
        """``document.normalized_hash`` of the whole normalized document, as the indexer computes it."""
        return self._digest.hexdigest()

    @property
    def simhash(self) -> int:
        """``document.document_simhash`` of the whole document."""
        if self._features == 0:  # fewer units than one feature: the whole text is the feature
            units = np.concatenate(self._short) if self._short else np.empty(0, np.uint64)
            return simhash64(feature_hashes(units))
        return simhash_from_votes(self._ones, self._features)


def text_family(settings: dict[str, str], path: str | None, language: str | None) -> str | None:
    """The text family a file of these settings is read with, or None for code (never segmented)."""
    try:
        family, _ = choose_normalizer(settings, path, language)
    except ValueError:
        return None
    return family if family != "code" else None


def is_huge(text: str, settings: dict[str, str], path: str | None = None,
            language: str | None = None) -> bool:
    """Whether ``text`` is long enough to be processed in segments (and is not code)."""
    return len(text) > HUGE_CHARS and text_family(settings, path, language) is not None


def safe_cut(text: str, start: int, target: int, family: str) -> tuple[int, bool]:
    """An end for the chunk beginning at ``start``, near ``target``, that splits no unit;
    (cut, exact)."""
    n = len(text)
    if target >= n:
        return n, True
    if family == "text":
        return target, True
    if family == "prose":  # a cut must not split the run of separators between two words (nor
        # part a letter from its combining marks): cut before a letter or digit, or where a run
        # begins after one
        def safe_prose(c: int) -> bool:
            return text[c].isalnum() or (text[c - 1].isalnum() and not _is_mark(text[c]))

        for c in range(target, min(n, target + _CUT_SEARCH)):
            if safe_prose(c):
                return c, True
        if target + _CUT_SEARCH >= n:  # separators up to the end: take them all
            return n, True
        for c in range(target - 1, max(start + 1, target - _CUT_SEARCH) - 1, -1):
            if safe_prose(c):
                return c, True
        return target, False  # separators longer than the search: split them

    def in_word(ch: str) -> bool:  # as normalize_words: letters, digits and combining marks
        return ch.isalnum() or (ch >= "\u0300" and unicodedata.category(ch)[0] == "M")

    def safe(c: int) -> bool:  # a cut before text[c] (c > start) splits no word and no markup tag
        ch = text[c]
        if in_word(ch) and in_word(text[c - 1]):
            return False
        if ch == "<":
            return True
        lt = text.rfind("<", max(0, c - _TAG_MAX), c)
        return lt < 0 or text.rfind(">", lt, c) >= 0

    for c in range(target, min(n, target + _CUT_SEARCH)):  # forward, then back towards the start
        if safe(c):
            return c, True
    low = max(start + 1, target - _CUT_SEARCH)
    for c in range(target - 1, low - 1, -1):
        if safe(c):
            return c, True
    return target, False  # a "word" longer than the search: split it


def _is_mark(ch: str) -> bool:  # as normalize.fold.word_joiners: a combining mark or a format character
    return ch >= "\u00ad" and (unicodedata.category(ch)[0] == "M" or unicodedata.category(ch) == "Cf")


def _sync_window(h: np.ndarray, t: int, w: int) -> int | None:
    """The first window index >= t whose minimum occurs once in it (None if none is found)."""
    last = min(h.shape[0] - w, t + SYNC_SEARCH)
    block = 1024
    for a in range(t, last + 1, block):
        b = min(last + 1, a + block)
        view = np.lib.stride_tricks.sliding_window_view(h[a: b + w - 1], w)
        mins = view.min(axis=1)
        unique = np.count_nonzero(view == mins[:, None], axis=1) == 1
        if unique.any():
            return a + int(np.argmax(unique))
    return None


def _add_simhash_features(stats: SegmentStats, carry: np.ndarray, units: np.ndarray) -> np.ndarray:
    """Count the simhash features (4-grams of text units) that end in ``units``; new carry."""
    seq = np.concatenate((carry, units)) if carry.shape[0] else units
    if seq.shape[0] < FEATURE_GRAM:
        stats._short = [seq]
        return seq
    stats._short = []
    feats = feature_hashes(seq)  # every 4-gram ending in units (the carry starts the first ones)
    stats._ones += bit_votes(feats)
    stats._features += int(feats.shape[0])
    return seq[-(FEATURE_GRAM - 1):].copy()


def iter_fingerprints(text: str, family: str, k: int, w: int, *, salt: int, selection: str = "winnow",
                      m: int = 1, stats: SegmentStats | None = None, chunk_chars: int | None = None,
                      segment_units: int | None = None) -> Iterator[Fingerprints]:
    """The document's fingerprints, a segment at a time, in position order (global positions).

    Concatenated, they equal ``fingerprint(normalize(text), k, w, ...)``; ``stats`` (optional)
    receives the unit count, normalized hash and simhash.
    """
    if stats is None:
        stats = SegmentStats()
    chunk_chars = chunk_chars or CHUNK_CHARS
    segment_units = segment_units or SEGMENT_UNITS
    normalize = {"words": normalize_words, "prose": normalize_prose}.get(family, normalize_text)
    n = len(text)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    buffered = 0
    base = 0  # global index of the first buffered unit
    last = -1  # last emitted position
    carry = np.empty(0, dtype=np.uint64)
    c0 = 0
    need = segment_units + SYNC_SEARCH + k + w
    while True:
        if c0 < n:
            c1, exact = safe_cut(text, c0, c0 + chunk_chars, family)
            stats.exact &= exact
            chunk = text[c0:c1]
            norm = normalize_prose(chunk, strip_start=c0 == 0, strip_end=c1 >= n) if family == "prose" \
                else normalize(chunk)
            stats._digest.update(units_bytes(norm.units, stats.width))
            stats.units += len(norm)
            text_units = norm.units if family == "text" else normalize_text(chunk).units
            carry = _add_simhash_features(stats, carry, text_units)
            parts.append((norm.units, norm.start + c0, norm.stop + c0))
            buffered += len(norm)
            c0 = c1
            if c0 < n and buffered < need:
                continue
        final = c0 >= n
        if not parts:  # an empty text
            return
        units = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
        starts = np.concatenate([p[1] for p in parts]) if len(parts) > 1 else parts[0][1]
        stops = np.concatenate([p[2] for p in parts]) if len(parts) > 1 else parts[0][2]
        h = kgram_hashes(units, k, salt)
        if final:
            cut = None
            sel = winnow(h, w) if selection == "winnow" else select(h, selection, w, m)
        else:
            cut = segment_units
            if selection == "winnow":
                found = _sync_window(h, cut, w)
                if found is None:
                    stats.exact = False
                else:
                    cut = found
                sel = winnow(h[: cut + w - 1], w)
            else:
                sel = select(h[:cut], selection, w, m)
        if sel.shape[0]:
            sel = sel[sel + base > last]
        if sel.shape[0]:
            last = base + int(sel[-1])
            stats.fingerprints += int(sel.shape[0])
            yield Fingerprints(hash=h[sel], pos=sel + base, start=starts[sel], stop=stops[sel + (k - 1)])
        if final:
            return
        assert cut is not None  # set above when the segment is not the last
        parts = [(units[cut:].copy(), starts[cut:].copy(), stops[cut:].copy())]
        del units, starts, stops, h, sel
        buffered = parts[0][0].shape[0]
        base += cut


def fingerprint_segmented(text: str, family: str, k: int, w: int, *, salt: int, selection: str = "winnow",
                          m: int = 1, **kw) -> tuple[SegmentStats, Fingerprints]:
    """All fingerprints of ``text`` computed in segments, concatenated (for queries and tests)."""
    stats = SegmentStats()
    pieces = list(iter_fingerprints(text, family, k, w, salt=salt, selection=selection, m=m, stats=stats, **kw))
    if not pieces:
        empty = np.empty(0, dtype=np.int64)
        return stats, Fingerprints(empty, empty, empty, empty)
    return stats, Fingerprints(*(np.concatenate([getattr(p, f) for p in pieces])
                                 for f in ("hash", "pos", "start", "stop")))


def segment_params(settings: Mapping[str, str], family: str, every_kgram: bool) -> dict:
    """The keyword arguments of ``iter_fingerprints`` for a document of ``family`` (a text
    normalizer) under an index's settings."""
    cfg = settings if isinstance(settings, IndexSettings) else IndexSettings(settings)
    k, w = cfg.kw(family)
    return dict(family=family, k=k, w=w, salt=cfg.salt(family),
                selection="all" if every_kgram else cfg.selection, m=cfg.mod_m)


def fingerprints_of(text: str, settings: dict[str, str], *, path: str | None = None,
                    language: str | None = None, every_kgram: bool = False) -> Fingerprints:
    """``fingerprint_source(...)[2]`` for a huge text, computed in segments."""
    family = text_family(settings, path, language)
    assert family is not None  # callers segment only huge texts (is_huge), never code
    params = segment_params(settings, family, every_kgram)
    stats, fps = fingerprint_segmented(text, **params)
    if every_kgram and params["family"] == "prose":
        fps = with_rows(fps, prose_edges(text, params["k"], stats.units))
    return fps


def prose_edges(text: str, k: int, units: int) -> Fingerprints:
    """``document.set_off_edges`` of a huge prose text of ``units`` units: its head and tail are
    normalized on their own, cut where a cut changes no unit."""
    n, span = len(text), 64 * k
    while True:
        cut, _ = safe_cut(text, 0, min(n, span), "prose")
        head = normalize_prose(text[:cut], strip_end=cut >= n)
        if len(head) >= k or cut >= n:
            break
        span *= 4
    span = 64 * k
    while True:
        start = 0 if span >= n else safe_cut(text, 0, n - span, "prose")[0]
        tail = normalize_prose(text[start:], strip_start=start == 0)
        if len(tail) >= k or start == 0:
            break
        span *= 4
    return set_off_edges(head, Normalized(tail.units, tail.start + start, tail.stop + start), units, k)
