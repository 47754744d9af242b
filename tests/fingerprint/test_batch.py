"""The batch path (fingerprint.batch) equals the per-document path, bit for bit (issue 19).

Every comparison checks values and dtypes, field by field, against the per-document functions
(``hashing.kgram_hashes``, ``winnow.winnow``, ``winnow.fingerprint``, ``simhash.feature_hashes``,
``simhash.bit_votes``, ``simhash.units_simhash``) over random batches that mix empty documents,
documents shorter than k, shorter than a window, long runs of one unit and small alphabets. Real
64-bit k-gram hashes almost never tie, so the robust tie rule is also driven directly with small
integer hashes full of ties: it must never look across a document boundary.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from winnowdb.fingerprint import batch
from winnowdb.fingerprint.batch import (
    bit_votes_many,
    concat_units,
    feature_hashes_many,
    fingerprint_many,
    kgram_hashes_many,
    select_many,
    simhash_many,
    winnow_many,
)
from winnowdb.fingerprint.hashing import kgram_hashes
from winnowdb.fingerprint.simhash import bit_votes, feature_hashes, units_simhash
from winnowdb.fingerprint.winnow import fingerprint, select, winnow
from winnowdb.normalize import normalize_as
from winnowdb.normalize.text import text_units
from winnowdb.normalize.units import Normalized
from winnowdb.settings import IndexSettings

SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"
FIELDS = ("hash", "pos", "start", "stop")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: block sizes (batch.BLOCK, units or hashes per block of documents) that split small batches
#: into many blocks, and the default (one block)
BLOCKS = st.sampled_from([1, 7, 40, batch.BLOCK])


@contextmanager
def block_size(size: int):
    """Work through batches in blocks of ``size`` elements (whole documents) meanwhile."""
    saved, batch.BLOCK = batch.BLOCK, size
    try:
        yield
    finally:
        batch.BLOCK = saved


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def assert_fingerprints_equal(docs, k, w, salt, selection, m, robust=True):
    got = fingerprint_many(docs, k, w, salt=salt, selection=selection, m=m, robust=robust)
    assert len(got) == len(docs)
    for i, (doc, g) in enumerate(zip(docs, got)):
        want = fingerprint(doc, k, w, salt=salt, robust=robust, selection=selection, m=m)
        for f in FIELDS:
            assert same(getattr(g, f), getattr(want, f)), (i, len(doc), f, selection, k, w)


def normalized(units: np.ndarray, seed: int) -> Normalized:
    """A document of ``units`` whose units have distinct, uneven spans (so a wrong position shows)."""
    rng = np.random.default_rng(seed)
    widths = rng.integers(1, 4, size=units.shape[0])
    stop = np.cumsum(widths + 1).astype(np.int64)
    return Normalized(units.astype(np.uint64), stop - widths, stop)


def _run_doc(draw, alphabet: int, max_size: int) -> np.ndarray:
    """Units with long runs: a list of (unit, run length)."""
    runs = draw(st.lists(st.tuples(st.integers(0, alphabet - 1), st.integers(1, 30)), max_size=max_size))
    return np.array([u for u, r in runs for _ in range(r)], dtype=np.uint64)


@st.composite
def unit_docs(draw, max_docs: int = 8):
    """A batch of unit arrays: empty, short, small alphabets, long runs (``0000...``), big ids."""
    docs = []
    for _ in range(draw(st.integers(0, max_docs))):
        kind = draw(st.sampled_from(["small", "runs", "wide", "empty"]))
        if kind == "empty":
            docs.append(np.empty(0, dtype=np.uint64))
        elif kind == "small":
            docs.append(np.array(draw(st.lists(st.integers(0, 2), max_size=60)), dtype=np.uint64))
        elif kind == "runs":
            docs.append(_run_doc(draw, 3, 6))
        else:  # ids past the mixing table (mixed_units' other path)
            docs.append(np.array(draw(st.lists(st.integers(0, 2**40), max_size=40)), dtype=np.uint64))
    return docs


# ------------------------------------------------------------------ k-gram hashes
@SETTINGS
@given(units_list=unit_docs(), k=st.integers(1, 9), salt=st.sampled_from([0, 1, 0x5EED, 2**64 - 1]), block=BLOCKS)
def test_kgram_hashes_many_equal_per_document(units_list, k, salt, block):
    with block_size(block):
        hashes, offsets = kgram_hashes_many(units_list, k, salt)
    assert offsets.dtype == np.int64 and offsets.shape == (len(units_list) + 1,)
    for i, units in enumerate(units_list):
        assert same(hashes[offsets[i]:offsets[i + 1]], kgram_hashes(units, k, salt))


def test_kgram_hashes_many_mixed_dtypes():
    rng = np.random.default_rng(1)
    units_list = [rng.integers(0, 200, 50).astype(np.uint8), rng.integers(0, 2**20, 40).astype(np.uint32),
                  rng.integers(0, 2**62, 30).astype(np.uint64), rng.integers(0, 2**62, 30).astype(np.int64)]
    hashes, offsets = kgram_hashes_many(units_list, 5, 3)
    for i, units in enumerate(units_list):
        assert same(hashes[offsets[i]:offsets[i + 1]], kgram_hashes(units, 5, 3))
    assert concat_units([])[0].shape == (0,)


# ------------------------------------------------------------------ the winnow part, with ties
@st.composite
def tied_hashes(draw):
    """Per-document hash arrays of a few small values (ties everywhere), some of them long runs."""
    docs = []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            docs.append(draw(st.lists(st.integers(0, 3), max_size=40)))
        else:
            docs.append(_run_doc(draw, 2, 5).tolist())
    return [np.array(d, dtype=np.int64) for d in docs]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=tied_hashes(), w=st.integers(1, 10), robust=st.booleans(), block=BLOCKS)
def test_winnow_many_equals_winnow_per_document_with_ties(docs, w, robust, block):
    hashes, offsets = concat_units(docs)
    with block_size(block):
        selected, sel_off = winnow_many(hashes.astype(np.int64), offsets, w, robust=robust)
    assert np.all(np.diff(selected) > 0)
    for i, h in enumerate(docs):
        mine = selected[sel_off[i]:sel_off[i + 1]] - offsets[i]
        assert same(mine, winnow(h, w, robust=robust)), (i, h.tolist(), w)


@pytest.mark.parametrize("w", [2, 3, 4, 6])
def test_tie_rule_does_not_cross_a_boundary(w):
    # A document ending in its minimum, then documents starting with the same value: joined into
    # one document, the robust rule would keep the first one's last hash; per document it must not.
    docs = [np.array([5, 4, 3, 0, 0], dtype=np.int64), np.array([0, 0, 0, 7, 0, 0], dtype=np.int64),
            np.array([0] * 9, dtype=np.int64), np.array([1, 0], dtype=np.int64),
            np.array([0, 1, 0, 1, 0, 0, 0, 2], dtype=np.int64)]
    hashes, offsets = concat_units(docs)
    for robust in (True, False):
        selected, sel_off = winnow_many(hashes, offsets, w, robust=robust)
        for i, h in enumerate(docs):
            assert same(selected[sel_off[i]:sel_off[i + 1]] - offsets[i], winnow(h, w, robust=robust))


@SETTINGS
@given(docs=tied_hashes(), selection=st.sampled_from(["winnow", "all", "mod"]), w=st.integers(1, 6),
       m=st.integers(1, 4), block=BLOCKS)
def test_select_many_equals_select(docs, selection, w, m, block):
    hashes, offsets = concat_units(docs)
    with block_size(block):
        selected, sel_off = select_many(hashes.astype(np.int64), offsets, selection, w, m)
    for i, h in enumerate(docs):
        assert same(selected[sel_off[i]:sel_off[i + 1]] - offsets[i], select(h, selection, w, m))


# ------------------------------------------------------------------ whole fingerprints
@SETTINGS
@given(units_list=unit_docs(), k=st.integers(1, 8), w=st.integers(1, 10), salt=st.sampled_from([0, 7, 2**63]),
       selection=st.sampled_from(["winnow", "all", "mod"]), m=st.integers(1, 5), robust=st.booleans(),
       block=BLOCKS)
def test_fingerprint_many_equals_fingerprint(units_list, k, w, salt, selection, m, robust, block):
    docs = [normalized(u, i) for i, u in enumerate(units_list)]
    with block_size(block):
        assert_fingerprints_equal(docs, k, w, salt, selection, m, robust)


@SETTINGS
@given(texts=st.lists(st.one_of(st.text(alphabet="0", max_size=200), st.text(alphabet="ab0 .", max_size=120),
                                st.text(max_size=40)), max_size=6),
       normalizer=st.sampled_from(["prose", "text", "words"]), k=st.sampled_from([1, 3, 5, 16, 22]),
       w=st.sampled_from([1, 4, 12]))
def test_fingerprint_many_normalized_texts(texts, normalizer, k, w):
    docs = [normalize_as(t, normalizer) for t in texts]
    for selection in ("winnow", "all", "mod"):
        assert_fingerprints_equal(docs, k, w, 11, selection, 3)


def sample_documents() -> list[tuple[str, str]]:
    out = []
    for path in sorted(SAMPLE.rglob("*")):
        if path.is_file():
            ext = path.suffix
            name = {".py": "code:python", ".java": "code:java", ".c": "code:c"}.get(ext)
            out.append((path.read_text(encoding="utf-8"), name))
    return out


@pytest.mark.parametrize("normalizer", ["prose", "text", "words", "code"])
@pytest.mark.parametrize("k,w", [(22, 12), (16, 12), (12, 8), (5, 4), (40, 30)])
def test_fingerprint_many_sample_corpus(normalizer, k, w):
    docs = sample_documents()
    if normalizer == "code":
        texts = [t for t, name in docs if name]
        norms = [normalize_as(t, name) for t, name in docs if name]
    else:
        texts = [t for t, _ in docs]
        norms = [normalize_as(t, normalizer) for t in texts]
    # the whole corpus, the same in another order, with empty and tiny documents among them
    norms = norms + [normalize_as("", "text"), normalize_as("a", "text")] + norms[::-1]
    salt = IndexSettings.salt("code" if normalizer == "code" else normalizer)
    for selection in ("winnow", "all", "mod"):
        assert_fingerprints_equal(norms, k, w, salt, selection, 4)
    with block_size(5000):  # a few documents per block
        assert_fingerprints_equal(norms, k, w, salt, "winnow", 1)
    assert sum(len(f) for f in fingerprint_many(norms, k, w, salt)) > 0


def test_fingerprint_many_empty_batch_and_errors():
    assert fingerprint_many([], 5, 4) == []
    doc = normalized(np.arange(10, dtype=np.uint64), 0)
    with pytest.raises(ValueError):
        fingerprint_many([doc], 0, 4)
    with pytest.raises(ValueError):
        fingerprint_many([doc], 3, 0)
    with pytest.raises(ValueError):
        fingerprint_many([doc], 3, 4, selection="mod", m=0)
    with pytest.raises(ValueError):
        fingerprint_many([doc], 3, 4, selection="nope")


# ------------------------------------------------------------------ simhash
@SETTINGS
@given(texts=st.lists(st.one_of(st.text(alphabet="abcXYZ019 .,;\n\tßéÉ½ﬁİı\u0301中𝐇\x00", max_size=60),
                                st.text(alphabet="0", max_size=300), st.text(max_size=8)), max_size=10),
       block=BLOCKS)
def test_simhash_many_equals_units_simhash(texts, block):
    units_list = [text_units(t) for t in texts]
    with block_size(block):
        features, offsets = feature_hashes_many(units_list)
        for i, units in enumerate(units_list):
            assert same(features[offsets[i]:offsets[i + 1]], feature_hashes(units))
        assert simhash_many(units_list) == [units_simhash(u) for u in units_list]


@SETTINGS
@given(units_list=unit_docs(max_docs=10), block=BLOCKS)
def test_simhash_many_units(units_list, block):
    with block_size(block):
        assert simhash_many(units_list) == [units_simhash(u) for u in units_list]


def test_bit_votes_many_across_lane_chunks_and_blocks():
    # documents of 0, 1, 254..256 (a byte lane holds 255 features), and one past a vote block
    rng = np.random.default_rng(7)
    sizes = [0, 1, 3, 254, 255, 256, 511, 0, 70_000, 2, 1000]
    units_list = [rng.integers(0, 40, n).astype(np.uint64) for n in sizes]
    features, offsets = feature_hashes_many(units_list)
    votes = bit_votes_many(features, offsets)
    assert votes.shape == (len(sizes), 64) and votes.dtype == np.int64
    for i in range(len(sizes)):
        assert same(votes[i], bit_votes(features[offsets[i]:offsets[i + 1]]))
    assert simhash_many(units_list) == [units_simhash(u) for u in units_list]
    # one document of all 255-multiples: the same feature again and again (every lane full)
    same_feature = np.full(255 * 3, 12345, dtype=np.int64)
    assert same(bit_votes_many(same_feature, np.array([0, 255 * 3]))[0], bit_votes(same_feature))


def test_simhash_many_sample_corpus():
    units_list = [text_units(t) for t, _ in sample_documents()]
    units_list += [text_units(""), text_units("ab"), text_units("abc")] + units_list[::-1]
    want = [units_simhash(u) for u in units_list]
    assert simhash_many(units_list) == want
    with block_size(3000):
        assert simhash_many(units_list) == want
    assert simhash_many([]) == []
