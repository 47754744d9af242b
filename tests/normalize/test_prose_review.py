"""The prose normalizer on inputs a review found it got wrong (invisible characters in words, huge
boilerplate, an unknown text_normalizer setting); each test failed on the code before the fix.

Every test uses real files, a real DuckDB index on disk and, where it is about the command line,
the real CLI.
"""
from __future__ import annotations

import re

import duckdb
import pytest
from typer.testing import CliRunner

import winnowdb
from winnowdb.cli import app
from winnowdb.ingest import segmented
from winnowdb.ingest.document import fingerprint_source
from winnowdb.normalize.prose import normalize_prose

ESSAY = ("Photosynthesis is the process by which green plants and certain other organisms transform light "
         "energy into chemical energy. During photosynthesis in green plants, light energy is captured and "
         "used to convert water, carbon dioxide, and minerals into oxygen and energy rich organic compounds. "
         "It would be impossible to overestimate the importance of photosynthesis in the maintenance of life "
         "on Earth. If photosynthesis ceased, there would soon be little food or other organic matter on "
         "Earth, and most organisms would disappear.\n")


def shown(text: str) -> str:
    return "".join(map(chr, normalize_prose(text).units.tolist()))


# --------------------------------------------------------------------------- invisible characters
#: invisible format characters (Unicode category Cf) that never separate two words, and that the
#: text normalizer drops: a soft hyphen (a hyphenation hint, common in text pasted from web pages
#: and PDFs), a word joiner, the zero-width non-joiner and joiner (inside Persian and Indic words,
#: and emoji); report.py already treats the soft hyphen and the (non-)joiners as part of words
INVISIBLE = {"soft hyphen": "\u00ad", "word joiner": "\u2060", "zero-width non-joiner": "\u200c",
             "zero-width joiner": "\u200d"}


@pytest.mark.parametrize("name", INVISIBLE)
def test_invisible_characters_inside_words_do_not_split_them(name):
    """An invisible character inside a word is not a separator between two words: the prose
    normalizer folds "inter<SHY>national" to "international", as the text normalizer's letters
    already do (it drops it), not to "inter.national"."""
    ch = INVISIBLE[name]
    assert shown(f"inter{ch}national relations") == shown("international relations")


@pytest.mark.parametrize("name", INVISIBLE)
def test_invisible_characters_do_not_hide_a_copy(tmp_path, name):
    """The classic obfuscation: the copy is the original with an invisible character inserted in
    every word. The text normalizer (--text-normalizer text) sees a verbatim copy; the default
    prose normalizer should too, not a pair sharing ~1% of its fingerprints."""
    ch = INVISIBLE[name]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "orig.txt").write_text(ESSAY, encoding="utf-8")
    (docs / "copy.txt").write_text(re.sub(r"\b(\w{2})(\w{2,})", lambda m: m[1] + ch + m[2], ESSAY),
                                   encoding="utf-8")
    with winnowdb.open(tmp_path / "text.duckdb", text_normalizer="text") as idx:  # control
        idx.add([docs])
        (pair,) = idx.pairs(top=0)
        assert pair["containment_a"] == pair["containment_b"] == 1.0
    with winnowdb.open(tmp_path / "prose.duckdb") as idx:  # the default: prose
        idx.add([docs])
        pairs = idx.pairs(top=0)
        assert len(pairs) == 1 and min(pairs[0]["containment_a"], pairs[0]["containment_b"]) >= 0.9, pairs


# --------------------------------------------------------------------------- huge prose boilerplate
def test_huge_prose_boilerplate_has_the_same_fingerprints_as_a_small_one(tmp_path):
    """``segmented.fingerprints_of`` is documented as ``fingerprint_source(...)[2]`` for a huge
    text; for prose boilerplate (every k-gram) the segmented path leaves out the k-grams across
    the boilerplate's set-off edges that ``fingerprint_source`` adds (``indexer.set_off_edges``)."""
    with winnowdb.open(tmp_path / "i.duckdb") as idx:
        settings = idx.settings
    assert settings["text_normalizer"] == "prose"
    _, _, whole = fingerprint_source(ESSAY, settings, path="bp.txt", every_kgram=True)
    seg = segmented.fingerprints_of(ESSAY, settings, path="bp.txt", every_kgram=True)
    assert sorted(seg.hash.tolist()) == sorted(whole.hash.tolist())


# --------------------------------------------------------------------------- unknown text normalizer
@pytest.fixture
def index_with_unknown_text_normalizer(tmp_path):
    """An index whose text_normalizer setting this winnowdb does not know (as one made by a later
    version with another text normalizer, or edited by hand): `check` reports it."""
    (tmp_path / "a.txt").write_text(ESSAY)
    (tmp_path / "b.txt").write_text(ESSAY.replace("green", "blue"))
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "a.txt"])
    con = duckdb.connect(str(db))
    con.execute("UPDATE settings SET value = 'syllables' WHERE key = 'text_normalizer'")
    con.close()
    return tmp_path, db


def _one_line_error(result) -> None:
    assert result.exit_code not in (0, None), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_add_to_an_index_with_an_unknown_text_normalizer_is_one_clear_error(index_with_unknown_text_normalizer):
    tmp_path, db = index_with_unknown_text_normalizer
    result = CliRunner().invoke(app, ["add", str(tmp_path / "b.txt"), "--db", str(db)])
    _one_line_error(result)
    assert "syllables" in result.output


def test_stats_of_an_index_with_an_unknown_text_normalizer_does_not_crash(index_with_unknown_text_normalizer):
    """`stats` shows an index's settings as they are (it did so for any normalizer value before)."""
    _, db = index_with_unknown_text_normalizer
    result = CliRunner().invoke(app, ["stats", "--db", str(db)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 0, result.output
    assert "syllables" in result.output
