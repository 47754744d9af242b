"""The simhash itself (winnowdb.simhash) and the block layouts of the Hamming search
(winnowdb.near_duplicates): Charikar's bit votes, the features, and Manku et al.'s guarantee that
two simhashes within distance k agree on every bit of at least one table's mask."""
from __future__ import annotations

import random
import re
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from winnowdb.analysis.near_duplicates import (
    MAX_TABLES,
    Layout,
    block_masks,
    check_hamming,
    choose_layout,
    layouts,
    make_layout,
    online_layout,
)
from winnowdb.errors import WinnowError
from winnowdb.fingerprint.simhash import feature_hashes, hamming, hamming_many, simhash64
from winnowdb.ingest.document import document_simhash

SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"

U64 = (1 << 64) - 1


def slow_simhash(features, weights=None) -> int:
    """Charikar's definition, one feature and one bit at a time (the reference)."""
    from winnowdb.fingerprint.hashing import splitmix64

    mixed = splitmix64(np.asarray(features, dtype=np.int64).view(np.uint64)).tolist()
    weights = [1] * len(mixed) if weights is None else list(weights)
    votes = [0] * 64
    for h, w in zip(mixed, weights):
        for bit in range(64):
            votes[bit] += w if (h >> bit) & 1 else -w
    value = sum(1 << b for b in range(64) if votes[b] > 0)
    return value - (1 << 64) if value >= 1 << 63 else value


# ------------------------------------------------------------------------------------ simhash64
@pytest.mark.parametrize("n", [1, 2, 3, 17, 256, 1000])
def test_simhash64_is_charikars_bit_vote(n):
    rng = np.random.default_rng(n)
    feats = rng.integers(-2**63, 2**63 - 1, size=n, dtype=np.int64, endpoint=True)
    weights = rng.integers(0, 6, size=n)
    assert simhash64(feats) == slow_simhash(feats)
    assert simhash64(feats, weights) == slow_simhash(feats, weights)
    # a weight is the same as repeating the feature
    assert simhash64(np.repeat(feats, weights)) == simhash64(feats, weights)


def test_simhash64_edge_cases():
    assert simhash64(np.empty(0, dtype=np.int64)) == 0
    one = np.array([12345], dtype=np.int64)
    assert simhash64(one) == slow_simhash(one) != 0
    assert -(1 << 63) <= simhash64(np.arange(100, dtype=np.int64)) < 1 << 63
    with pytest.raises(ValueError):
        simhash64(one, np.array([-1]))
    with pytest.raises(ValueError):
        simhash64(one, np.array([1, 2]))


def test_feature_hashes_are_4grams_or_the_whole_short_text():
    from winnowdb.normalize.text import normalize_text

    units = normalize_text("Hello, World").units  # helloworld: 10 units -> 7 four-grams
    assert feature_hashes(units).shape == (7,)
    assert feature_hashes(normalize_text("ab").units).shape == (1,)
    assert feature_hashes(normalize_text("").units).shape == (0,)


def test_document_simhash_is_deterministic_and_normalized():
    text = "The quick brown fox jumps over the lazy dog. " * 5
    assert document_simhash(text) == document_simhash(text)
    # case, accents, spacing and punctuation are folded away
    assert document_simhash(text) == document_simhash(text.upper().replace(" ", "  ").replace(".", "!"))
    assert document_simhash("Café au lait") == document_simhash("cafe AU LAIT")
    # no letters or digits: no simhash
    assert document_simhash("") == 0
    assert document_simhash(" ... ;;; \n") == 0
    assert document_simhash("a") != 0
    # the caller may pass the normalized text it already has
    from winnowdb.normalize.text import normalize_text

    assert document_simhash(text, normalize_text(text)) == document_simhash(text)


#: simhashes written by SIMHASH_VERSION char4-tf-splitmix-v2 as first released: stored simhashes
#: must keep matching new ones, so any faster path must give exactly these
PINNED = {
    "stable across runs": -2117589019458486960,
    "Café au lait, Straße ½": 1919943335813006513,
    "x": 3510350897647485321,
    "abc": -1646697120722096056,
    "def main():\n    return 42  # ok\n": 8147156608921922064,
    "": 0,
}


@pytest.mark.parametrize("text", sorted(PINNED))
def test_document_simhash_values_are_pinned(text):
    assert document_simhash(text) == PINNED[text]


def reference_document_simhash(text: str) -> int:
    """The definition: normalize_text, every 4-gram's kgram_hashes with the simhash salt (the whole
    text when shorter), then Charikar's vote one bit at a time."""
    from winnowdb.fingerprint.hashing import kgram_hashes
    from winnowdb.fingerprint.simhash import FEATURE_SALT as _SALT
    from winnowdb.normalize.text import normalize_text

    units = normalize_text(text).units
    if units.shape[0] == 0:
        return 0
    return slow_simhash(kgram_hashes(units, min(4, units.shape[0]), salt=_SALT))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("abcXYZ019 .,;\n\tßéÉ½ﬁİı\u0301中𝐇\x00"), max_size=60)
       | st.text(max_size=30))
def test_document_simhash_fast_paths_follow_the_definition(text):
    # ASCII text takes a table path, other text normalize_text; both must give the definition's value
    expected = reference_document_simhash(text)
    assert document_simhash(text) == expected
    from winnowdb.normalize.text import normalize_text

    assert document_simhash(text, normalize_text(text)) == expected


def test_document_simhash_is_stable_across_processes():
    import subprocess
    import sys

    code = "from winnowdb.ingest.document import document_simhash; print(document_simhash('stable across runs'))"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            for _ in range(2)}
    assert runs == {f"{document_simhash('stable across runs')}\n"}


def test_hamming_many_matches_hamming():
    rng = np.random.default_rng(3)
    x = rng.integers(-2**63, 2**63 - 1, size=500, dtype=np.int64, endpoint=True)
    expected = [hamming(int(v), int(x[0])) for v in x]
    assert hamming_many(x, x[0]).tolist() == expected
    assert hamming(-1, 0) == 64 and hamming(1 << 63, 0) == 1 and hamming(-(1 << 63), 0) == 1
    assert hamming_many(x.reshape(50, 10), x[:50, None]).shape == (50, 10)


# ------------------------------------------------------------------------ near-identical texts
SENTENCE = re.compile(r"(?<=[.!?])\s+")
INDEPENDENT = ["bread_baking", "chess_openings", "coral_reefs", "telegraph", "bees", "comets",
               "glaciers", "tides", "lighthouses", "origami", "printing_press", "volcanoes"]


def essays() -> dict[str, str]:
    return {name: (SAMPLE / "essays" / f"{name}.txt").read_text(encoding="utf-8") for name in INDEPENDENT}


def test_one_changed_sentence_stays_within_3_bits_real_text():
    # a long document (the 12 independent essays, about 150 sentences): replacing any one
    # sentence with a sentence from elsewhere moves the simhash by at most 3 bits
    texts = essays()
    long_text = "\n\n".join(texts.values())
    sentences = SENTENCE.split(long_text)
    assert len(sentences) > 140
    base = document_simhash(long_text)
    foreign = [s for s in SENTENCE.split((SAMPLE / "essays" / "comets.txt").read_text()) if len(s) > 40]
    distances = []
    for i, s in enumerate(sentences):
        if len(s) < 40:  # titles and fragments
            continue
        edited = list(sentences)
        edited[i] = foreign[i % len(foreign)]
        distances.append(hamming(base, document_simhash(" ".join(edited))))
    assert len(distances) > 140
    assert max(distances) <= 3, sorted(distances)[-5:]


def test_unrelated_texts_are_far_apart():
    sims = {name: document_simhash(t) for name, t in essays().items()}
    distances = [hamming(sims[a], sims[b]) for a, b in combinations(sims, 2)]
    assert min(distances) > 3 + 6, min(distances)  # far beyond k = 3, with a wide margin
    assert 20 <= np.mean(distances) <= 44  # unrelated: around half of the 64 bits
    # two long documents made of different essays are just as far apart
    names = list(sims)
    first = document_simhash("\n\n".join(essays()[n] for n in names[:6]))
    second = document_simhash("\n\n".join(essays()[n] for n in names[6:]))
    assert hamming(first, second) > 9


# A generator of pseudo-English: each topic has its own vocabulary of made-up words, all topics
# share English function words (as real documents do). Deterministic (random.Random by string).
SYLLABLES = ["ka", "to", "ri", "men", "sa", "lo", "ver", "dan", "i", "e", "an", "or", "thu", "ble", "mi",
             "co", "ra", "pe", "st", "ul", "ge", "na", "fo", "qui", "bo", "te", "la", "ny", "ex", "ch"]
FUNCTION = ["the", "of", "and", "to", "a", "in", "is", "that", "it", "as", "was", "for", "on", "with",
            "by", "be", "are", "this", "from", "at", "or", "which", "an", "but", "not", "they", "their"]


def topic_words(topic: int, n: int = 400) -> list[str]:
    rng = random.Random(f"topic-{topic}")
    out, seen = [], set(FUNCTION)
    while len(out) < n:
        w = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3, 3, 4))))
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def sentence(rng: random.Random, vocab: list[str]) -> str:
    words = [rng.choice(FUNCTION) if rng.random() < 0.45 else
             vocab[min(int(rng.paretovariate(1.0)) - 1, len(vocab) - 1)] if rng.random() < 0.5 else
             rng.choice(vocab) for _ in range(rng.randint(8, 20))]
    return " ".join(words).capitalize() + "."


def document(topic: int, sentences: int) -> list[str]:
    vocab = topic_words(topic)
    rng = random.Random(f"doc-{topic}")
    return [sentence(rng, vocab) for _ in range(sentences)]


@pytest.mark.parametrize("topic", range(12))
def test_one_changed_sentence_stays_within_3_bits_constructed(topic):
    sentences = document(topic, 150)
    rng = random.Random(f"edit-{topic}")
    edited = list(sentences)
    edited[rng.randrange(len(edited))] = sentence(rng, topic_words(topic + 1000))
    assert hamming(document_simhash(" ".join(sentences)), document_simhash(" ".join(edited))) <= 3


def test_constructed_unrelated_documents_are_far_apart():
    sims = [document_simhash(" ".join(document(t, 150))) for t in range(12)]
    assert min(hamming(a, b) for a, b in combinations(sims, 2)) > 9


# ------------------------------------------------------------------------------------- layouts
def all_difference_sets(k: int) -> np.ndarray:
    """Every 64-bit value with exactly k bits set (as uint64)."""
    out = np.zeros(sum(1 for _ in combinations(range(64), k)), dtype=np.uint64)
    for i, bits in enumerate(combinations(range(64), k)):
        v = 0
        for b in bits:
            v |= 1 << b
        out[i] = v
    return out


def covers(layout: Layout, diffs: np.ndarray) -> bool:
    """Whether, for every difference set, some mask has none of its bits (the pair agrees there)."""
    masks = np.array(layout.masks, dtype=np.uint64)
    for start in range(0, diffs.shape[0], 8192):
        chunk = diffs[start:start + 8192]
        if not ((chunk[:, None] & masks[None, :]) == 0).any(axis=1).all():
            return False
    return True


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_every_layout_guarantees_a_common_table_exhaustively(k):
    # every way of placing k differing bits leaves some table's mask untouched (so the pair
    # agrees on that table's block key), for every layout the chooser may pick
    diffs = all_difference_sets(k)
    for layout in layouts(k):
        assert covers(layout, diffs), layout.levels


def test_paper_designs_for_k3():
    # Example 3.1 of the paper, for 64-bit fingerprints and k = 3
    assert make_layout(3, (6,)).tables == 20 and sorted(set(make_layout(3, (6,)).bits)) == [31, 32, 33]
    assert make_layout(3, (4, 4)).tables == 16 and set(make_layout(3, (4, 4)).bits) == {28}
    assert make_layout(3, (5,)).tables == 10 and set(make_layout(3, (5,)).bits) == {25, 26}
    assert make_layout(3, (4,)).tables == 4 and set(make_layout(3, (4,)).bits) == {16}
    assert covers(make_layout(4, (5, 5)), all_difference_sets(4))
    assert covers(make_layout(4, (6,)), all_difference_sets(4))


@pytest.mark.parametrize("k", [4, 5, 6, 8, 12, 20, 32])
def test_larger_k_layouts_cover_random_difference_sets(k):
    rng = np.random.default_rng(k)
    diffs = np.zeros(3000, dtype=np.uint64)
    for i in range(diffs.shape[0]):
        v = 0
        for b in rng.choice(64, size=k, replace=False):
            v |= 1 << int(b)
        diffs[i] = v
    for n in (100, 10**6):
        for batch in (True, False):
            assert covers(choose_layout(k, n, batch=batch), diffs)


def test_layout_choice_follows_the_tradeoff():
    # few documents: the fewest tables (k + 1 blocks); many: more tables with more bits each
    assert choose_layout(3, 1000, batch=True).levels == (4,)
    assert choose_layout(3, 10**6, batch=True).levels == (5,)
    assert choose_layout(3, 10**9, batch=True).tables >= 16
    # one query always reads every table once: the fewest tables, k + 1 blocks, at every size
    for k in range(0, 33):
        for n in (2, 10, 1000, 10**6, 10**9, 2**40):
            assert choose_layout(k, n, batch=False).levels == (k + 1,) == online_layout(k).levels
    assert choose_layout(0, 10**6, batch=True).masks == (U64,)  # exact match on all 64 bits
    assert choose_layout(1, 10**6, batch=False).tables == 2
    # brute force only where nothing else is cheaper
    assert choose_layout(32, 1000, batch=True).levels == ()
    assert choose_layout(32, 1000, batch=False).levels != ()
    for k in range(0, 33):
        for n in (2, 1000, 10**6):
            lay = choose_layout(k, n, batch=True)
            assert lay.tables <= MAX_TABLES
            assert lay.cost(n, batch=True) <= make_layout(k, ()).cost(n, batch=True)


def test_layout_table_is_signed_bigints():
    table = make_layout(3, (5,)).table()
    assert table.column_names == ["block", "mask"]
    assert str(table.schema.field("mask").type) == "int64"
    masks = [m & U64 for m in table.column("mask").to_pylist()]
    assert masks == list(make_layout(3, (5,)).masks)
    assert "10 tables" in make_layout(3, (5,)).describe()


def test_block_masks_rejects_impossible_levels():
    with pytest.raises(ValueError):
        block_masks(3, (3,))  # 3 blocks cannot guarantee a clean block with 3 differences
    with pytest.raises(ValueError):
        block_masks(3, (4, 50))  # the second level has only 48 bits


@pytest.mark.parametrize("bad", [-1, 33, 2.5, "x", None])
def test_check_hamming_rejects_bad_distances(bad):
    with pytest.raises(WinnowError):
        check_hamming(bad)
