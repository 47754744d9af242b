"""Winnowing as the paper specifies it (Figure 2, Definitions 1 and 3) and the k-gram hash.

The reference implementation below is a literal, window-by-window reading of the paper's
definitions, written for clarity, not speed; the product's vectorized ``winnow`` must agree with
it everywhere.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from winnowdb.fingerprint.hashing import kgram_hashes
from winnowdb.fingerprint.winnow import fingerprint, winnow
from winnowdb.normalize.text import normalize_text
from winnowdb.settings import HASH_VERSION

# Figure 2(d): hashes of the 5-grams of "A do run run run, a do run run"
FIG2_HASHES = [77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98]


def reference_window_choices(h, w, robust):
    """The index chosen in each window, by Definition 1 (plain) or Definition 3 (robust).

    Definition 1: select the minimum hash; among equal minima the rightmost one.
    Definition 3: select the minimum hash; break ties by selecting the same hash as the window
    one position to the left when possible, otherwise the rightmost minimum.
    A sequence shorter than one window is one (short) window, as in the product.
    """
    h = [int(x) for x in h]
    n = len(h)
    if n == 0:
        return []
    windows = [(i, min(i + w, n)) for i in range(max(n - w + 1, 1))]
    choices = []
    prev = None
    for lo, hi in windows:
        m = min(h[lo:hi])
        if robust and prev is not None and lo <= prev < hi and h[prev] == m:
            choice = prev
        else:
            choice = max(j for j in range(lo, hi) if h[j] == m)
        choices.append(choice)
        prev = choice
    return choices


def reference_winnow(h, w, robust):
    """Positions of the fingerprints (each selected hash saved once), sorted."""
    return sorted(set(reference_window_choices(h, w, robust)))


def _winnow(h, w, robust):
    return winnow(np.asarray(h, dtype=np.int64), w, robust=robust).tolist()


# ------------------------------------------------------------------ Figure 2 and Definition 3
@pytest.mark.parametrize("robust", [False, True])
def test_figure2_fingerprints(robust):
    h = np.array(FIG2_HASHES, dtype=np.int64)
    pos = winnow(h, 4, robust=robust)
    assert pos.tolist() == [3, 6, 8, 11, 15]  # Figure 2(g)
    assert h[pos].tolist() == [17, 17, 8, 39, 17]  # Figure 2(f)


def test_reference_reproduces_figure2_and_its_window3_tie():
    # The reference itself must reproduce the paper, so that comparing against it means something.
    assert reference_winnow(FIG2_HASHES, 4, False) == [3, 6, 8, 11, 15]
    assert reference_winnow(FIG2_HASHES, 4, True) == [3, 6, 8, 11, 15]
    # Window 3 of Figure 2(e), (17, 98, 50, 17) at positions 3..6, ties at 3 and 6: plain
    # winnowing takes the rightmost (6), robust keeps window 2's choice (3).
    assert reference_window_choices(FIG2_HASHES, 4, False)[3] == 6
    assert reference_window_choices(FIG2_HASHES, 4, True)[3] == 3


def test_robust_and_plain_differ_on_figure2_prefix():
    # Figure 2 cut after window 3: the tie of window 3 is the last choice made, so plain
    # winnowing selects both 17s and robust winnowing only the first one.
    h = FIG2_HASHES[:7]  # 77 74 42 17 98 50 17
    assert reference_winnow(h, 4, False) == [3, 6]
    assert reference_winnow(h, 4, True) == [3]
    assert _winnow(h, 4, robust=False) == [3, 6]
    assert _winnow(h, 4, robust=True) == [3]


@pytest.mark.parametrize("h,w,plain,robust", [
    ([1, 5, 1, 5, 1], 3, [2, 4], [2]),
    ([3, 3, 3, 3, 3, 3], 3, [2, 3, 4, 5], [2, 5]),
    ([2, 1, 1, 1, 2, 1, 1], 4, [3, 5, 6], [3]),
])
def test_robust_and_plain_differ_by_hand(h, w, plain, robust):
    assert reference_winnow(h, w, False) == plain
    assert reference_winnow(h, w, True) == robust
    assert _winnow(h, w, robust=False) == plain
    assert _winnow(h, w, robust=True) == robust


def test_winnow_matches_reference_on_many_small_arrays_with_ties():
    rng = random.Random(20030609)
    for _ in range(3000):
        n = rng.randrange(0, 40)
        w = rng.randrange(1, 10)
        distinct = rng.choice([1, 2, 3, 4, 8])
        h = [rng.randrange(distinct) for _ in range(n)]
        for robust in (False, True):
            assert _winnow(h, w, robust) == reference_winnow(h, w, robust), (h, w, robust)


def test_winnow_matches_reference_on_long_runs_of_ties():
    # long stretches where the robust rule holds one selection for many windows
    rng = random.Random(7)
    for _ in range(300):
        w = rng.randrange(2, 12)
        h = []
        while len(h) < 120:
            h += [rng.randrange(3)] * rng.randrange(1, 3 * w)
        for robust in (False, True):
            assert _winnow(h, w, robust) == reference_winnow(h, w, robust), (h, w, robust)


def test_winnow_edge_cases():
    assert _winnow([], 4, True) == []
    assert _winnow([5], 4, True) == [0]
    assert _winnow([4, 2, 2], 4, True) == [2]  # shorter than a window: its rightmost minimum
    assert _winnow([4, 2, 3], 1, True) == [0, 1, 2]  # w = 1 keeps every hash
    with pytest.raises(ValueError):
        winnow(np.array([1, 2], dtype=np.int64), 0)


def test_winnow_uses_signed_order():
    # hashes are compared as signed 64-bit integers (as DuckDB and Spark do)
    h = np.array([5, -(2**63), 2**63 - 1, -1], dtype=np.int64)
    assert winnow(h, 4).tolist() == [1]


def test_every_window_holds_a_selected_minimum():
    # Lemma behind the guarantee: each window's minimum value is among the fingerprints,
    # at a position inside the window.
    rng = np.random.default_rng(1)
    for w in (1, 2, 5, 17):
        h = rng.integers(0, 6, 400).astype(np.int64)
        sel = winnow(h, w)
        chosen = set(sel.tolist())
        for i in range(len(h) - w + 1):
            m = h[i:i + w].min()
            assert any(h[j] == m for j in range(i, i + w) if j in chosen), (w, i)


# ------------------------------------------------------------------ the guarantee
ALPHABET = "abcd"  # small, so hashes and windows see many repeats and ties


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), k=st.integers(1, 12), w=st.integers(1, 12))
def test_shared_substring_of_length_t_shares_a_fingerprint(data, k, w):
    t = w + k - 1
    shared = data.draw(st.text(ALPHABET, min_size=t, max_size=t + 30), label="shared")
    pre_a = data.draw(st.text(ALPHABET + "xyz .,\n", max_size=60), label="pre_a")
    suf_a = data.draw(st.text(ALPHABET + "xyz .,\n", max_size=60), label="suf_a")
    pre_b = data.draw(st.text(ALPHABET + "xyz .,\n", max_size=60), label="pre_b")
    suf_b = data.draw(st.text(ALPHABET + "xyz .,\n", max_size=60), label="suf_b")
    # the copy changes case and puts punctuation and white space between the letters
    seps = data.draw(st.lists(st.sampled_from(["", "", " ", ", ", "\n", "-"]),
                              min_size=len(shared), max_size=len(shared)), label="seps")
    copied = "".join(c.upper() + s if i % 2 else c + s for i, (c, s) in enumerate(zip(shared, seps)))
    doc_a = pre_a + " " + shared + " " + suf_a
    doc_b = pre_b + "\n" + copied + ". " + suf_b
    fa = fingerprint(normalize_text(doc_a), k, w)
    fb = fingerprint(normalize_text(doc_b), k, w)
    common = set(fa.hash.tolist()) & set(fb.hash.tolist())
    assert common, (doc_a, doc_b, k, w)


def test_fingerprint_spans_point_at_the_kgram():
    text = "A do run run run, a do run run"
    k, w = 5, 4
    norm = normalize_text(text)
    fps = fingerprint(norm, k, w)
    assert len(fps) > 0
    units = "adorunrunrunadorunrun"  # Figure 2(b)
    assert "".join(map(chr, norm.units.tolist())) == units
    for h, pos, start, stop in zip(fps.hash, fps.pos, fps.start, fps.stop):
        gram = units[pos:pos + k]
        assert "".join(map(chr, normalize_text(text[start:stop]).units.tolist())) == gram
        assert kgram_hashes(normalize_text(gram).units, k).tolist() == [h]


# ------------------------------------------------------------------ density
def _random_text(n, seed):
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
    return letters[rng.integers(0, 26, n)].tobytes().decode("ascii")


@pytest.mark.parametrize("k,w", [(5, 10), (20, 20), (12, 50)])
def test_density_on_random_text_is_two_over_w_plus_one(k, w):
    text = _random_text(600_000, seed=k * 1000 + w)
    norm = normalize_text(text)
    fps = fingerprint(norm, k, w)
    density = len(fps) / (len(norm) - k + 1)
    expected = 2 / (w + 1)
    assert abs(density - expected) / expected < 0.03, (density, expected)


# ------------------------------------------------------------------ low-entropy text
@pytest.mark.parametrize("text,w,min_ratio", [
    ("0" * 20_000, 20, 15),
    ("abba" * 5_000, 40, 8),
    ("ab" * 10_000, 30, 10),
])
def test_robust_winnowing_selects_far_fewer_on_repetitive_text(text, w, min_ratio):
    norm = normalize_text(text)
    k = 5
    plain = len(fingerprint(norm, k, w, robust=False))
    robust = len(fingerprint(norm, k, w, robust=True))
    n = len(norm) - k + 1
    assert plain / robust >= min_ratio, (plain, robust)
    # the paper: robust winnowing on "0000..." is one fingerprint per window length
    assert robust <= n / w + 2
    # ... and the default is robust
    assert len(fingerprint(norm, k, w)) == robust


# ------------------------------------------------------------------ the hash
DETERMINISM_TEXT = "Déjà vu: the QUICK brown fox — jumps over 13 lazy dogs! 𝔘nicode ☃ " * 3

# Hashes are stored in indexes, so for one HASH_VERSION they must never change (on any machine,
# in any process). If the hash is changed on purpose and HASH_VERSION bumped, add its values here.
GOLDEN = {
    # kgram_hashes(units of "adorunrunrunadorunrun", k=5)[:3]
    "splitmix-poly-fmix64-v1": [-8311720310327251826, 2677693724626410482, 7204704417526870807],
}


def _hashes_here(k):
    return kgram_hashes(normalize_text(DETERMINISM_TEXT).units, k).tolist()


def test_hashes_are_the_same_in_another_process():
    code = (
        "import json, sys\n"
        "from winnowdb.fingerprint.hashing import kgram_hashes\n"
        "from winnowdb.normalize.text import normalize_text\n"
        "text = sys.stdin.read()\n"
        "print(json.dumps({k: kgram_hashes(normalize_text(text).units, k).tolist() for k in (1, 5, 20)}))\n"
    )
    here = {str(k): _hashes_here(k) for k in (1, 5, 20)}
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code], input=DETERMINISM_TEXT, capture_output=True,
                             text=True, encoding="utf-8", env=env, check=True, timeout=60)
        assert json.loads(out.stdout) == here


def test_hash_golden_values():
    assert HASH_VERSION in GOLDEN, f"new HASH_VERSION {HASH_VERSION}: add its golden values"
    units = np.array([ord(c) for c in "adorunrunrunadorunrun"], dtype=np.uint64)
    assert kgram_hashes(units, 5)[:3].tolist() == GOLDEN[HASH_VERSION]


def test_equal_kgrams_hash_equal_and_shifted_kgrams_differ():
    units = np.array([ord(c) for c in "adorunrunrunadorunrun"], dtype=np.uint64)
    h = kgram_hashes(units, 5).tolist()
    assert len(h) == len(units) - 5 + 1
    grams = ["adorunrunrunadorunrun"[i:i + 5] for i in range(len(h))]
    for i in range(len(h)):
        for j in range(len(h)):
            assert (h[i] == h[j]) == (grams[i] == grams[j])
    # a k-gram's hash does not depend on where it is, nor on the text around it
    assert kgram_hashes(units[3:8], 5).tolist() == [h[3]]
    # the same units hashed as k-grams of different lengths give different hashes
    assert kgram_hashes(units[:3], 3).tolist()[0] not in kgram_hashes(units[:3], 1).tolist()


def test_kgram_hashes_short_and_invalid():
    assert kgram_hashes(np.array([1, 2], dtype=np.uint64), 3).size == 0
    with pytest.raises(ValueError):
        kgram_hashes(np.array([1, 2], dtype=np.uint64), 0)


@pytest.mark.parametrize("high", [2**16, 2**40])
def test_hash_spread_no_collisions_and_balanced_bits(high):
    rng = np.random.default_rng(high)
    k = 4
    units = rng.integers(0, high, 100_000 + k - 1).astype(np.uint64)
    grams = np.lib.stride_tricks.sliding_window_view(units, k)
    distinct_grams = np.unique(grams, axis=0).shape[0]
    assert distinct_grams > 99_000
    h = kgram_hashes(units, k)
    assert np.unique(h).shape[0] == distinct_grams  # no collisions
    bits = ((h.view(np.uint64)[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).mean(axis=0)
    assert np.all(np.abs(bits - 0.5) < 0.01), bits


def test_hash_spread_on_structured_input():
    # consecutive, nearly identical k-grams (a counting sequence) must spread too
    k = 6
    units = np.arange(100_000 + k - 1, dtype=np.uint64)
    h = kgram_hashes(units, k)
    assert np.unique(h).shape[0] == 100_000
    bits = ((h.view(np.uint64)[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).mean(axis=0)
    assert np.all(np.abs(bits - 0.5) < 0.01), bits
