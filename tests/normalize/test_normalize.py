"""The text normalizer: what it folds, what it drops, and that every unit maps back to its text."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from winnowdb.normalize.text import normalize_text


def folded(text: str) -> str:
    return "".join(map(chr, normalize_text(text).units.tolist()))


def assert_offsets_map_back(text: str) -> None:
    """Each unit's original slice text[start:stop] normalizes to exactly that unit.

    (A character that folds to several units, if the normalizer ever does that, gives several
    units with the same span; the span then normalizes to all of them.)
    """
    n = normalize_text(text)
    assert n.units.dtype == np.uint64
    assert len(n.units) == len(n.start) == len(n.stop) == len(n)
    groups: list[tuple[int, int, list[int]]] = []
    for unit, start, stop in zip(n.units.tolist(), n.start.tolist(), n.stop.tolist()):
        assert 0 <= start < stop <= len(text)
        if groups and groups[-1][:2] == (start, stop):
            groups[-1][2].append(unit)
            continue
        assert not groups or start >= groups[-1][1]  # in order, not overlapping
        groups.append((start, stop, [unit]))
    for start, stop, units in groups:
        assert normalize_text(text[start:stop]).units.tolist() == units, (text, start, stop)


@pytest.mark.parametrize("a,b", [
    ("Hello World", "hello world"),  # case
    ("HELLO", "hello"),
    ("hello   world", "hello\n\tworld"),  # white space
    ("hello world", "helloworld"),
    ("Run, run! (run?) -- run.", "runrunrunrun"),  # punctuation
    ("café naïve résumé", "cafe naive resume"),  # accents
    ("ÀÉÎÕÜ çñ Å", "aeiou cn a"),
    ("Ｆｕｌｌｗｉｄｔｈ", "fullwidth"),  # compatibility forms
    ("ΣΊΣΥΦΟΣ", "σισυφοσ"),  # Greek: accents and final sigma folded
    ("İstanbul", "istanbul"),
    ("x² + y²", "x2y2"),
])
def test_folds_to_the_same_units(a, b):
    assert folded(a) == folded(b)


def test_kept_and_dropped_characters():
    assert folded("A do run run run, a do run run") == "adorunrunrunadorunrun"  # Figure 2(b)
    assert folded("route 66!") == "route66"
    assert folded(" \t\r\n.,;:!?'\"()[]{}<>-_/\\|@#$%^&*+=~`") == ""
    assert folded("日本語テキスト") == "日本語テキスト"  # letters of other scripts are kept
    assert folded("١٢٣") == "١٢٣"  # digits of other scripts too


def test_empty_and_blank_text():
    for text in ("", "   ", "\n\n\t", "...!?", "😀🎉"):
        n = normalize_text(text)
        assert len(n) == 0
        assert n.units.shape == n.start.shape == n.stop.shape == (0,)


def test_non_bmp_characters():
    # emoji are symbols: dropped; offsets count code points (Python string indices)
    text = "a😀b 𐐀x"  # U+1F600 emoji, U+10400 DESERET CAPITAL LONG I
    n = normalize_text(text)
    assert folded("a😀b") == "ab"
    assert n.start.tolist() == [0, 2, 4, 5]
    assert text[n.start[3]:n.stop[3]] == "x"
    # non-BMP letters are kept and case folded like any other letter
    assert folded("𐐀") == folded("𐐨") == "\U00010428"
    assert_offsets_map_back(text)


def test_mathematical_letters_fold_to_plain_lower_case():
    # U+1D400.. MATHEMATICAL BOLD letters (non-BMP) and U+210C BLACK-LETTER CAPITAL H (BMP)
    # are compatibility forms of ordinary letters: case and compatibility folded, they read "hello".
    assert folded("𝐇𝐞𝐥𝐥𝐨") == "hello"
    assert folded("ℌello") == "hello"


def test_folding_is_idempotent():
    # Folded text is already folded: normalizing the normalized units changes nothing.
    # (A violation means some character folds to a letter that still has case or accents.)
    # Planes 0 and 1 and the CJK compatibility supplement: where all letters with case live.
    cps = list(range(0xD800)) + list(range(0xE000, 0x20000)) + list(range(0x2F800, 0x2FA20))
    text = "".join(map(chr, cps))
    once = normalize_text(text).units
    twice = normalize_text("".join(map(chr, once.tolist()))).units
    assert len(twice) == len(once)
    bad = np.flatnonzero(once != twice)
    first = normalize_text(text).start[bad[:10]].tolist() if bad.size else []
    assert bad.size == 0, (f"{bad.size} code points fold to a unit that folds again, e.g. "
                           + ", ".join(f"U+{ord(text[i]):04X}" for i in first))


def test_one_character_that_folds_to_two_letters():
    # Full case folding maps ß to "ss" and the ligature ﬁ to "fi": "Straße"/"STRASSE" and
    # "ﬁne"/"fine" are the same words and must normalize the same.
    assert folded("Straße") == folded("STRASSE")
    assert folded("ﬁne") == folded("fine")


def test_offsets_map_back_on_mixed_text():
    text = ("  Ça, c'est «très» BIEN!\r\n\tNaïve café — 42 € — x² ﬀ\n"
            "ΣΊΣΥΦΟΣ 日本 𝐀𝐁 😀 end.")
    assert_offsets_map_back(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=80))
def test_offsets_map_back_on_any_text(text):
    assert_offsets_map_back(text)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40),
       st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40))
def test_normalization_is_concatenative(a, b):
    # units of a + b are the units of a followed by the units of b (no context dependence)
    assert normalize_text(a + b).units.tolist() == (normalize_text(a).units.tolist()
                                                    + normalize_text(b).units.tolist())


def test_lone_surrogates_do_not_crash():
    n = normalize_text("a\ud800b")
    assert folded("a\ud800b") == "ab"
    assert n.start.tolist() == [0, 2]


def test_words_fold_as_text_does():
    """Word shingles fold letters as the text normalizer does: ß is ss, a ligature its letters, a
    decomposed accent part of its word (it split words in two before)."""
    import unicodedata

    from winnowdb.normalize.words import normalize_words

    def units(s):
        return normalize_words(s).units.tolist()

    assert units("Die Straße") == units("die STRASSE")
    assert units("the ﬁrst ofﬁcial ﬂight") == units("the first official flight")
    nfc = "Les élèves ont étudié la géographie"
    nfd = unicodedata.normalize("NFD", nfc)
    assert units(nfd) == units(nfc) == units("les eleves ont etudie la geographie")
    w = normalize_words(nfd)
    assert [nfd[a:b] for a, b in zip(w.start.tolist(), w.stop.tolist())][1] == unicodedata.normalize("NFD", "élèves")
    assert units("a \u0301 b") == units("a b")  # a combining mark alone is not a word
