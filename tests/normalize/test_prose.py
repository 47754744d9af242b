"""The prose normalizer (the default for text): letters folded as the text normalizer folds them,
plus one unit for the separators between two words; and the index settings that choose it."""
from __future__ import annotations

import sys
import unicodedata

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import winnowdb
from winnowdb.ingest import segmented
from winnowdb.ingest.segmented import safe_cut as _safe_cut
from winnowdb.normalize.prose import PROSE_MARK, PROSE_SPACE, WHITESPACE, normalize_prose
from winnowdb.normalize.text import normalize_text


def shown(text: str, **kw) -> str:
    return "".join(map(chr, normalize_prose(text, **kw).units.tolist()))


def test_whitespace_table_is_what_python_calls_white_space():
    assert set(WHITESPACE) == {c for c in range(sys.maxunicode + 1) if chr(c).isspace()}


@pytest.mark.parametrize("text,units", [
    ("Hello,  World!\n", "hello.world."),
    ("  leading and trailing white space  \n", "leading and trailing white space"),
    ("summer, year after year.", "summer.year after year."),
    ("summer -- year after year;", "summer.year after year."),  # any punctuation run: one mark
    ("the rapist", "the rapist"),
    ("therapist", "therapist"),  # word boundaries count
    ("Straße — OK…", "strasse.ok."),  # letters folded as text folds them
    ("cafe\u0301 noir", "cafe noir"),  # a combining accent belongs to its letter
    ("a \u0301 b", "a b"),  # a stray mark inside white space is part of the run
    ("inter\u00adnational re\u200dlations", "international relations"),  # invisible format characters too
    ("a \u00ad b", "a b"),
    ("...x...", ".x."),  # punctuation at the ends is kept: it is a separator
    ("", ""), ("   \n\t ", ""), ("\u0301", ""),
])
def test_units(text, units):
    assert shown(text) == units


def test_separator_units_span_their_whole_run():
    text = "one ,\n two"
    n = normalize_prose(text)
    (i,) = np.flatnonzero(n.units == PROSE_MARK)
    assert (n.start[i], n.stop[i]) == (3, 7) and text[3:7] == " ,\n "
    assert normalize_prose("a \n b").units.tolist().count(PROSE_SPACE) == 1


def test_strip_flags_keep_white_space_at_a_cut():
    assert shown(" a ", strip_start=False, strip_end=False) == " a "
    assert shown(" a ", strip_start=False) == " a"


text_st = st.text(st.sampled_from(list("ab Z9 ,.-\n\t") + ["ß", "\u0301", "é", "ﬁ", "\U0001d400", "\u3000", "日",
                                                            "\u00ad", "\u200b", "\u2060"]),
                  max_size=60)


def punctuation(c: str) -> bool:  # what makes a run of separators a mark
    return not (c.isalnum() or c.isspace() or unicodedata.category(c)[0] == "M" or unicodedata.category(c) == "Cf")


@settings(max_examples=300, deadline=None)
@given(text=text_st)
@example(text="ß, \u0301x")
def test_letters_are_the_text_normalizers_and_offsets_map_back(text):
    prose, letters = normalize_prose(text), normalize_text(text)
    is_letter = (prose.units != PROSE_SPACE) & (prose.units != PROSE_MARK)
    assert prose.units[is_letter].tolist() == letters.units.tolist()
    assert prose.start[is_letter].tolist() == letters.start.tolist()
    assert (prose.start < prose.stop).all() and (prose.stop <= len(text)).all()
    assert (np.diff(prose.start) >= 0).all()
    for u, a, b in zip(prose.units.tolist(), prose.start.tolist(), prose.stop.tolist()):
        if u in (PROSE_SPACE, PROSE_MARK):  # a separator unit spans no letter, and neighbours them
            assert not normalize_text(text[a:b]).units.size
            assert u == (PROSE_MARK if any(punctuation(c) for c in text[a:b]) else PROSE_SPACE)
    seps = ~is_letter
    assert not (seps[1:] & seps[:-1]).any()  # never two separator units in a row


@settings(max_examples=300, deadline=None)
@given(text=text_st, at=st.integers(0, 60))
def test_a_safe_cut_changes_nothing(text, at):
    """Two pieces cut where segmented.py cuts normalize to the units of the whole."""
    if not text:
        return
    cut, exact = _safe_cut(text, 0, max(1, min(at, len(text))), "prose")
    assert exact
    a = normalize_prose(text[:cut], strip_end=cut >= len(text))
    b = normalize_prose(text[cut:], strip_start=False)
    assert np.concatenate((a.units, b.units)).tolist() == normalize_prose(text).units.tolist()
    assert np.concatenate((a.start, b.start + cut)).tolist() == normalize_prose(text).start.tolist()
    assert np.concatenate((a.stop, b.stop + cut)).tolist() == normalize_prose(text).stop.tolist()


def test_new_index_reads_text_as_prose_with_its_own_defaults(tmp_path):
    (tmp_path / "a.txt").write_text("Some prose, with punctuation.\n")
    with winnowdb.open(tmp_path / "i.duckdb") as idx:
        idx.add([tmp_path / "a.txt"])
        s = idx.settings
        assert (s["normalizer"], s["text_normalizer"], s["k"], s["w"]) == ("auto", "prose", "22", "12")
        assert idx.sql("SELECT normalizer FROM documents")[1] == [("prose",)]
    with winnowdb.open(tmp_path / "t.duckdb", normalizer="text") as idx:  # the paper's: k 16, w 12
        s = idx.settings
        assert (s["normalizer"], s["text_normalizer"], s["k"], s["w"]) == ("text", "text", "16", "12")


def test_index_made_before_prose_keeps_reading_text_with_letters(tmp_path):
    """An index with no text_normalizer setting (made before prose existed) still reads text
    with the text normalizer: new documents match the ones it already holds."""
    (tmp_path / "a.txt").write_text("Some prose, with punctuation.\n")
    db = tmp_path / "old.duckdb"
    with winnowdb.open(db, text_normalizer="text", k=16, w=12) as idx:
        pass
    import duckdb

    con = duckdb.connect(str(db))
    con.execute("DELETE FROM settings WHERE key = 'text_normalizer'")
    con.close()
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "a.txt"])
        assert idx.sql("SELECT normalizer FROM documents")[1] == [("text",)]
    with pytest.raises(winnowdb.WinnowError, match="reads text with the text normalizer, not prose"):
        winnowdb.open(db, text_normalizer="prose")


@pytest.mark.parametrize("huge", [False, True], ids=["small", "huge"])
def test_prose_boilerplate_set_off_in_documents_never_counts(tmp_path, monkeypatch, huge):
    """Starter text embedded in documents between paragraphs, set off by blank lines or by
    punctuation: the k-grams across its edges are boilerplate too, so the two documents (which
    share nothing else) make no pair -- also when the boilerplate file is big enough to be stored
    in segments (the threshold lowered, as tests/reliability/test_big.py does). Every k-gram is
    kept (--selection all), so none can slip through by winnowing's luck. (The words before the
    header end in different letters: a k-gram that begins inside them is not boilerplate.)"""
    header = "Course 101 Integrity statement I confirm that this essay is my own work and cite my sources"
    (tmp_path / "bp").mkdir()
    (tmp_path / "bp" / "header.txt").write_text(header + "\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Tides rise and fall twice a day.\n\n" + header + "\n\nThe moon pulls the sea.\n")
    (docs / "b.txt").write_text("Glaciers carve valleys over time; " + header + ". Ice flows downhill.\n")
    if huge:
        monkeypatch.setattr(segmented, "HUGE_CHARS", len(header) // 2)
    with winnowdb.open(tmp_path / "i.duckdb", selection="all") as idx:
        idx.add([tmp_path / "bp"], boilerplate=True)
        idx.add([docs])
        assert idx.pairs(top=0) == []
    with winnowdb.open(tmp_path / "control.duckdb", selection="all") as idx:  # without it they do pair
        idx.add([docs])
        assert len(idx.pairs(top=0)) == 1


def test_spark_fingerprint_job_takes_the_text_normalizer():
    """`winnowdb spark fingerprint --text-normalizer text` makes the settings `add` would."""
    from winnowdb.spark import jobs

    s = jobs.job_settings(text_normalizer="text")
    assert (s["normalizer"], s["text_normalizer"], s["k"], s["w"]) == ("auto", "text", "16", "12")
    assert jobs.job_settings()["text_normalizer"] == "prose"


@settings(max_examples=300, deadline=None)
@given(text=text_st)
def test_prose_units_without_separators_are_the_text_normalizers(text):
    """A prose document's simhash is computed from its prose units, separators left out
    (``document.document_simhashes``): they must be the ``text`` normalizer's units of the text,
    and the simhash the same, on the numpy path and the compiled one."""
    from winnowdb.fingerprint.batch import simhash_many
    from winnowdb.fingerprint.simhash import units_simhash
    from winnowdb.normalize.prose import SEPARATORS
    from winnowdb.normalize.text import text_units

    units = normalize_prose(text).units
    assert np.array_equal(units[~np.isin(units, SEPARATORS)], text_units(text))
    want = units_simhash(text_units(text))
    assert simhash_many([units], skip=[SEPARATORS]) == [want]
    assert simhash_many([units], skip=[SEPARATORS], compiled=True) == [want]
