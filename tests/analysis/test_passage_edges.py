"""Text passages reach the edges of the words both documents share: winnowing keeps one k-gram
per window, so the outermost matches start and end inside the shared material; passages are
grown from them letter by letter while both texts agree, but only to word boundaries ("alpha"
and "omega" share a last letter, not a word), and a combining accent stays with its letter.
Real files, a real index, the Python API."""
from __future__ import annotations

import unicodedata

import pytest
from conftest import random_words

import winnowdb


def _passages(tmp_path, a: str, b: str, **settings):
    (tmp_path / "a.txt").write_text(a, encoding="utf-8")
    (tmp_path / "b.txt").write_text(b, encoding="utf-8")
    with winnowdb.open(tmp_path / "index.duckdb", **settings) as idx:
        idx.add([tmp_path / "a.txt", tmp_path / "b.txt"])
        cmp = idx.compare(tmp_path / "a.txt", tmp_path / "b.txt")
    return [(a[p.start_a:p.end_a], b[p.start_b:p.end_b]) for p in cmp.passages]


@pytest.mark.parametrize("seed", range(12))
def test_a_shared_sentence_is_one_passage_from_its_first_to_its_last_letter(tmp_path, seed):
    shared = " ".join(random_words(seed, 40)).capitalize()
    a = f"Some words about alpha. {shared} Zebra crossing at noon.\n"
    b = f"Other notes on omega:\n{shared}, Zulu time for everyone.\n"
    assert _passages(tmp_path, a, b) == [(shared, shared)]


def test_decomposed_accents_stay_with_their_letters(tmp_path):
    shared = unicodedata.normalize("NFD", "Nous avons pris un petit déjeuner au café")
    a = f"Alpha premier. {shared} zzzz qqqq wwww\n"
    b = f"Beta second. {shared} mmmm nnnn pppp\n"
    ((pa, pb),) = _passages(tmp_path, a, b, k=5, w=4)
    assert pa == pb == shared  # ends after the accent of "café", not between "e" and it


def test_growing_stops_at_the_first_difference(tmp_path):
    words = random_words(99, 60)
    a = " ".join(["north"] + words[:30] + ["red"] + words[30:] + ["south"])
    b = " ".join(["east"] + words[:30] + ["blue"] + words[30:] + ["west"])
    got = _passages(tmp_path, a, b)
    assert [pa for pa, _ in got] == [" ".join(words[:30]), " ".join(words[30:])]
    assert all(pa == pb for pa, pb in got)


def test_a_text_copied_twice_gives_passages_in_the_order_of_the_copies(tmp_path):
    s = "Photosynthesis converts light energy into chemical energy stored in glucose molecules."
    a = f"Intro about football.\n{s}\n"
    b = f"Castles and moats.\n{s}\nBicycles and roads.\n{s}\n"
    (tmp_path / "a.txt").write_text(a)
    (tmp_path / "b.txt").write_text(b)
    with winnowdb.open(tmp_path / "index.duckdb") as idx:
        idx.add([tmp_path / "a.txt", tmp_path / "b.txt"])
        passages = idx.compare(tmp_path / "a.txt", tmp_path / "b.txt").passages
    assert [b[p.start_b:p.end_b] for p in passages] == [s.rstrip("."), s.rstrip(".")]
    assert passages[0].start_b < passages[1].start_b


def test_text_without_spaces_keeps_its_matched_span(tmp_path):
    """In Chinese (no spaces) a "word" runs to the next punctuation mark: a passage edge inside
    one stays where the matches put it (moving in to a boundary would drop copied clauses)."""
    import random

    rng = random.Random(5)
    chars = [chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(300)]
    for i in range(39, 300, 40):
        chars[i] = "。"
    a = "".join(chars)
    b = "前言部分。" + a[50:200] + "结尾部分。"
    got = _passages(tmp_path, a, b)
    assert len(got) == 1 and got[0][0] == got[0][1]
    shown = got[0][0]
    assert len(shown) >= 140 and shown in a[50:200]  # nearly all of the 150 copied characters


def test_matches_without_spans_are_not_merged_into_one_passage():
    """Rows read as stored have no span (-1: ``Side.unplaced``/``unstored``): runs that do not
    follow each other stay apart, as runs whose spans do not overlap would; a side with spans
    still merges by its own."""
    import numpy as np

    from winnowdb.analysis.passages import merge_matches

    def rows(spans: bool) -> dict:  # two runs far apart in both documents, on two diagonals
        pos_a = np.array([0, 3, 6, 500, 503], dtype=np.int64)
        pos_b = np.array([100, 103, 106, 900, 903], dtype=np.int64)
        start = 3 * pos_a if spans else np.full(5, -1)
        return {"doc_a": np.ones(5, np.int64), "pos_a": pos_a, "start_a": start, "end_a": start + 20 if spans
                else start, "doc_b": np.full(5, 2), "pos_b": pos_b, "start_b": np.full(5, -1),
                "end_b": np.full(5, -1), "hash": np.arange(5)}

    assert len(merge_matches(rows(spans=False), 4)) == 2
    assert len(merge_matches(rows(spans=True), 4)) == 2
