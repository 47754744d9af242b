"""Hash buckets (store/buckets.py): every signed 64-bit hash falls in exactly one bucket, in
order; the 16-bit sort key orders a bucket's hashes; and on hashes that winnowing keeps (not
uniform: window minima crowd the low end) the buckets hold about equal numbers of rows."""
from __future__ import annotations

import random

import numpy as np
import pytest

from winnowdb.fingerprint.winnow import fingerprint
from winnowdb.normalize import normalize_as
from winnowdb.store.buckets import BOUNDS, BUCKETS, SPAN_ROWS, bucket_of, hash_range, sort_key, span_range, spans

MIN, MAX = -(1 << 63), (1 << 63) - 1


def test_the_buckets_cover_every_hash_once_in_order():
    assert BOUNDS[0] == MIN and BOUNDS[-1] == MAX + 1 and len(BOUNDS) == BUCKETS + 1
    edges = []
    for p in range(BUCKETS):
        lo, hi = hash_range(p)
        assert lo <= hi
        if p:
            assert lo == hash_range(p - 1)[1] + 1  # no gap, no overlap
        edges += [(lo, p), (hi, p)] + ([(lo + 1, p), (hi - 1, p)] if hi > lo + 1 else [])
    values = np.array([v for v, _ in edges], dtype=np.int64)
    assert bucket_of(values).tolist() == [p for _, p in edges]


@pytest.mark.parametrize(("rows", "count"), [
    (0, 1), (1, 1), (SPAN_ROWS, 1), (SPAN_ROWS + 1, 2), (4 * SPAN_ROWS, 4), (40 * SPAN_ROWS, 32),
    (64 * SPAN_ROWS, 64), (10**12, 64),
])
def test_an_add_stores_spans_of_consecutive_buckets_of_about_span_rows(rows, count):
    got = spans(rows)
    assert len(got) == count
    covered = [p for first, last in got for p in range(first, last + 1)]
    assert covered == list(range(BUCKETS))  # every bucket once, in order
    for first, last in got:
        assert span_range((first, last)) == (hash_range(first)[0], hash_range(last)[1])


@pytest.mark.parametrize("p", [0, 1, 31, BUCKETS - 2, BUCKETS - 1])
def test_the_sort_key_orders_a_bucket(p):
    lo, hi = hash_range(p)
    rng = np.random.default_rng(p)
    h = np.sort(np.concatenate([[lo, hi], rng.integers(lo, hi, size=10_000, dtype=np.int64, endpoint=True)]))
    key = sort_key(h, p)
    assert (np.diff(key.astype(np.int64)) >= 0).all()
    assert key[0] == 0 and key[-1] >= 2**15  # the key spans the bucket: rows sort by more than their top bits


@pytest.mark.parametrize("normalizer,k,w", [("prose", 22, 12), ("words", 12, 8), ("text", 16, 12)])
def test_winnowed_hashes_fill_the_buckets_about_equally(normalizer, k, w):
    # the defaults: prose k 22 / w 12; code tokens k 12 / w 8 (the window decides the skew); text
    rng = random.Random(k * w)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(5000)]
    norm = normalize_as(" ".join(rng.choice(words) for _ in range(300_000)), normalizer)
    hashes = fingerprint(norm, k, w).hash
    counts = np.bincount(bucket_of(hashes), minlength=BUCKETS)
    # equal-width buckets (the top 6 bits) put 6.5x the mean into the fullest one
    assert counts.max() <= 2.0 * counts.mean(), counts.tolist()
