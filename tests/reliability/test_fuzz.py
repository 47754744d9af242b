"""Fuzzing the normalizers and fingerprinting with hostile Unicode (hypothesis).

Arbitrary code points including lone surrogates, combining marks, right-to-left text and
overrides, zero-width characters, byte-order marks, astral characters, ligatures and case
expansions. Properties: nothing crashes; every unit and every fingerprint points inside the
original text; fingerprints are deterministic (also in another process); winnowing keeps its
guarantee; and the segmented path for huge documents gives exactly the whole-document result.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from winnowdb.fingerprint.hashing import kgram_hashes
from winnowdb.fingerprint.winnow import fingerprint
from winnowdb.ingest import segmented
from winnowdb.normalize.prose import normalize_prose
from winnowdb.normalize.text import normalize_text
from winnowdb.normalize.words import normalize_words

SPECIAL = [
    "\u0301", "\u0308", "\u20dd", "\u0f7a",  # combining marks
    "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff",  # zero-width space/non-joiner/joiner, word joiner, BOM
    "\u200e", "\u200f", "\u202a", "\u202b", "\u202e", "\u2066", "\u2069",  # LTR/RTL marks, overrides, isolates
    "\u05e9\u05dc\u05d5\u05dd", "\u0645\u0631\u062d\u0628\u0627", "\u0928\u092e\u0938\u094d\u0924\u0947",
    "\ud800", "\udbff", "\udc00", "\udfff",  # lone surrogates
    "\U0001d518\U0001d52b", "\U0001f469\u200d\U0001f4bb", "\U0001f44d\U0001f3fd", "\U00010348",  # astral
    "\ufb01", "\u00df", "\u0130", "\u1e9e", "\u2126", "\u212b", "\u00bd", "\u2460",  # ligature, ß, İ, Ω, Å, ½, ①
    "\x00", "\x1b[31m", "\r\n", "\t", "<b>", "</i>", "<", ">", "'", "--",
]
chars = st.one_of(
    st.characters(),  # any code point (hypothesis leaves out surrogates here)
    st.characters(categories=["Cs"]),  # lone surrogates
    st.characters(categories=["Mn", "Me", "Cf", "Zs", "Lo", "Nd", "No"]),
    st.sampled_from(SPECIAL),
)
hostile_text = st.lists(chars, max_size=120).map("".join)
# longer texts with repetition (ties in winnowing), for the segmented comparison
words = st.sampled_from(["tide", "moon", "Sea", "ÉTÉ", "naïve", "日本", "\u05e9\u05dc", "a", "aaaa", "x1",
                         "\u200b", "<p>", "--", "\ufb01x", "\U0001d518"])
long_text = st.lists(st.one_of(words, chars, st.sampled_from([" ", " ", "\n", ". "])),
                     min_size=0, max_size=1500).map("".join)

NORMALIZERS = {"text": normalize_text, "words": normalize_words, "prose": normalize_prose}
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_maps_inside(norm, text: str, *, one_char: bool) -> None:
    n = len(norm)
    assert norm.units.shape == norm.start.shape == norm.stop.shape == (n,)
    if n == 0:
        return
    assert (norm.units != 0).all()
    assert int(norm.start.min()) >= 0 and int(norm.stop.max()) <= len(text)
    assert (norm.start < norm.stop).all()
    assert (np.diff(norm.start) >= 0).all()  # in text order
    # units do not overlap, except several units expanded from one character ("ß" -> "ss"),
    # which all map back to that character
    same = (norm.start[:-1] == norm.start[1:]) & (norm.stop[:-1] == norm.stop[1:])
    assert (same | (norm.stop[:-1] <= norm.start[1:])).all()
    if one_char:
        assert (norm.stop - norm.start == 1).all()


@FUZZ
@given(text=hostile_text)
def test_normalizers_never_crash_and_stay_inside_the_text(text):
    for name, fn in NORMALIZERS.items():
        a, b = fn(text), fn(text)
        assert_maps_inside(a, text, one_char=(name == "text"))
        assert np.array_equal(a.units, b.units) and np.array_equal(a.start, b.start)
    # each kept character is a letter or digit of the text
    for i in normalize_text(text).start.tolist():
        assert text[i].isalnum()


@FUZZ
@given(a=hostile_text, b=hostile_text)
def test_text_normalizer_is_per_character(a, b):
    # the property the segmented path relies on: any cut gives the same units
    whole, left, right = normalize_text(a + b), normalize_text(a), normalize_text(b)
    assert np.array_equal(whole.units, np.concatenate([left.units, right.units]))
    assert np.array_equal(whole.start, np.concatenate([left.start, right.start + len(a)]))


@FUZZ
@given(text=hostile_text, k=st.integers(1, 9), w=st.integers(1, 9),
       normalizer=st.sampled_from(sorted(NORMALIZERS)), selection=st.sampled_from(["winnow", "all", "mod"]))
def test_fingerprints_point_inside_the_text_and_keep_the_guarantee(text, k, w, normalizer, selection):
    norm = NORMALIZERS[normalizer](text)
    fp = fingerprint(norm, k, w, selection=selection, m=3)
    again = fingerprint(NORMALIZERS[normalizer](text), k, w, selection=selection, m=3)
    for f in ("hash", "pos", "start", "stop"):
        assert np.array_equal(getattr(fp, f), getattr(again, f))
    n = len(norm)
    if n < k:
        assert len(fp) == 0
        return
    h = kgram_hashes(norm.units, k)
    assert (fp.pos >= 0).all() and (fp.pos <= n - k).all()
    assert np.array_equal(fp.hash, h[fp.pos])
    assert np.array_equal(fp.start, norm.start[fp.pos]) and np.array_equal(fp.stop, norm.stop[fp.pos + k - 1])
    assert (fp.start >= 0).all() and (fp.stop <= len(text)).all() and (fp.start < fp.stop).all()
    if selection == "winnow":
        sel = set(fp.pos.tolist())
        if len(h) < w:
            assert len(sel) == 1
        for i in range(len(h) - w + 1):  # every window holds a selected position, at its minimum
            chosen = [p for p in range(i, i + w) if p in sel]
            assert chosen and min(h[p] for p in chosen) == h[i:i + w].min()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=long_text, k=st.integers(1, 8), w=st.integers(1, 8), normalizer=st.sampled_from(sorted(NORMALIZERS)),
       selection=st.sampled_from(["winnow", "all", "mod"]), chunk=st.integers(7, 300),
       segment=st.integers(5, 200), search=st.integers(1, 40))
# found by this test in session 6: a chunk that cannot hold a word may still cut before it
@example(text=":tide\u65e5\u672c0", k=1, w=1, normalizer="words", selection="winnow", chunk=7, segment=5, search=1)
# found by CI in session 12: a combining mark inside a word ("tide\u0300tide" is one word of 9)
@example(text="tide\u0300tide", k=1, w=1, normalizer="words", selection="winnow", chunk=7, segment=5, search=1)
def test_segmented_equals_whole_document(text, k, w, normalizer, selection, chunk, segment, search):
    from winnowdb.ingest.document import document_simhash
    from winnowdb.settings import SALTS as _SALT

    norm = NORMALIZERS[normalizer](text)
    whole = fingerprint(norm, k, w, salt=_SALT[normalizer], selection=selection, m=3)
    saved, segmented.SYNC_SEARCH = segmented.SYNC_SEARCH, search
    try:
        stats, seg = segmented.fingerprint_segmented(text, normalizer, k, w, salt=_SALT[normalizer],
                                                     selection=selection, m=3, chunk_chars=chunk,
                                                     segment_units=segment)
    finally:
        segmented.SYNC_SEARCH = saved
    import hashlib

    assert (seg.start >= 0).all() and (seg.stop <= len(text)).all() and (seg.start < seg.stop).all()
    assert (np.diff(seg.pos) > 0).all()
    if stats.exact or normalizer in ("text", "prose"):  # text cuts never split a unit, nor do
        # prose cuts (but in a run of separators of _CUT_SEARCH characters)
        assert stats.units == len(norm)
        assert stats.normalized_hash == hashlib.blake2b(norm.units.tobytes(), digest_size=16).hexdigest()
        assert stats.simhash == document_simhash(text)
    if stats.exact:
        for f in ("hash", "pos", "start", "stop"):
            assert np.array_equal(getattr(whole, f), getattr(seg, f)), f
    elif normalizer in ("text", "prose"):  # a cut inside a long run of equal minima: the guarantee
        # still holds
        assert selection == "winnow"
        h = kgram_hashes(norm.units, k, _SALT[normalizer])
        sel = set(seg.pos.tolist())
        for i in range(len(h) - w + 1):
            assert any(p in sel and h[p] == h[i:i + w].min() for p in range(i, i + w))
    else:  # words: a word longer than the chunk had to be split (a million letters in real use);
        # a word's span holds the combining marks and joiners written in it (not alnum)
        assert chunk < int((norm.stop - norm.start).max())


def test_segmented_inexact_only_in_long_runs_of_ties(monkeypatch):
    # 'aaaa...' gives one repeated hash: no window has a unique minimum, so a cut cannot
    # resynchronise; everywhere else the result is exact
    monkeypatch.setattr(segmented, "SYNC_SEARCH", 64)
    text = "varied words here " * 50 + "a" * 5000 + " more varied words " * 50
    stats, seg = segmented.fingerprint_segmented(text, "text", 5, 4, salt=0, chunk_chars=300, segment_units=200)
    assert not stats.exact
    stats, seg = segmented.fingerprint_segmented(text.replace("a" * 5000, "abcdefghij" * 500), "text", 5, 4, salt=0,
                                                 chunk_chars=300, segment_units=200)
    assert stats.exact
    whole = fingerprint(normalize_text(text.replace("a" * 5000, "abcdefghij" * 500)), 5, 4)
    assert np.array_equal(whole.hash, seg.hash)


def test_fingerprints_are_the_same_in_another_process():
    text = ("Grüße \u202eevil\u202c \ufb01sh \U0001d518\U0001d52b 日本語 "
            "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 ") * 20
    local = {n: fingerprint(fn(text), 5, 4).hash.tolist() for n, fn in NORMALIZERS.items()}
    code = ("import json, sys\nfrom winnowdb.fingerprint.winnow import fingerprint\n"
            "from winnowdb.normalize.prose import normalize_prose\n"
            "from winnowdb.normalize.text import normalize_text\n"
            "from winnowdb.normalize.words import normalize_words\n"
            "t = sys.stdin.read()\n"
            "print(json.dumps({'text': fingerprint(normalize_text(t), 5, 4).hash.tolist(),"
            " 'words': fingerprint(normalize_words(t), 5, 4).hash.tolist(),"
            " 'prose': fingerprint(normalize_prose(t), 5, 4).hash.tolist()}))")
    for seed in ("1", "12345"):
        r = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True,
                           env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin",
                                "PYTHONIOENCODING": "utf-8"}, check=True)
        assert json.loads(r.stdout) == local


@pytest.mark.parametrize("lang", ["python", "java", "c", "javascript"])
@FUZZ
@given(text=hostile_text)
def test_code_normalizer_never_crashes(lang, text):
    from winnowdb.normalize.code import normalize_code

    norm = normalize_code(text, lang)
    assert_maps_inside(norm, text, one_char=False)
