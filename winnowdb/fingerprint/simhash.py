"""Charikar's 64-bit simhash of a document, as used by Manku, Jain and Das Sarma (WWW 2007).

Features: every 4-gram of the document's normalized text (letters and digits, case and accents
folded: ``normalize.text.text_units``), weighted by how often it occurs. Each feature votes
+weight on the bits set in its 64-bit hash and -weight on the others; the simhash has a 1 wherever
the sum is positive. Near-duplicate documents share most features, so their simhashes differ in
few bits: the expected number of differing bits is 64 * angle / pi, the angle between the two
documents' weighted feature vectors.

Why character 4-grams and not the winnowed fingerprints: winnowing keeps about one k-gram in ten,
and a fingerprint is a rare feature (a 12- or 20-character passage), so one changed sentence
changes a large share of the features and moves the simhash by several bits. Short, frequent
4-grams put most of a document's weight on material that a one-sentence edit leaves alone, which
roughly halves the distance of near-duplicates while unrelated documents stay about 28 bits
apart (measurements in docs/simhash.md). The features do not depend on the index settings
(k, w, normalizer), so simhashes are comparable between indexes; code files are folded the same
way (letters and digits only).

Everything is vectorized with numpy and deterministic (fixed integer hashing, never Python's
``hash()``). A document with no letters or digits has simhash 0, which means "no simhash".
``settings.SIMHASH_VERSION`` names the features and hashing: change them and it must change too.
"""
from __future__ import annotations

import numpy as np

from .hashing import BASE, fmix64, kgram_hashes, mixed_units, splitmix64

__all__ = ["simhash64", "bit_votes", "simhash_from_votes", "units_simhash", "feature_hashes", "hamming",
           "hamming_many", "FEATURE_GRAM", "FEATURE_SALT"]

#: length of the character n-grams that are the simhash features
FEATURE_GRAM = 4
#: keeps the feature hashes apart from the fingerprint hashes
FEATURE_SALT = 0x5117_4A54
_U64 = np.uint64
# powers of the k-gram polynomial's base, for 4-grams (see feature_hashes)
_B1 = BASE
_B2 = np.uint64(int(_B1) ** 2 % (1 << 64))
_B3 = np.uint64(int(_B1) ** 3 % (1 << 64))

#: _BITS[v, i] = bit i of the byte v (for turning byte histograms into bit counts)
_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.int64)


def simhash64(features: np.ndarray, weights: np.ndarray | None = None) -> int:
    """The simhash (as a signed 64-bit int) of an array of 64-bit feature hashes.

    ``weights`` (non-negative integers, one per feature) default to 1; a feature listed several
    times weighs as many times as it occurs. Features are re-mixed (splitmix64) first, so any
    64-bit ids will do, even biased ones. Ties (a zero vote) give a 0 bit. No features give 0.
    """
    features = np.asarray(features)
    n = int(features.shape[0])
    if n == 0:
        return 0
    if weights is None:
        total = n
    else:
        weights = np.asarray(weights, dtype=np.int64)
        if weights.shape[0] != n:
            raise ValueError("one weight per feature")
        if n and int(weights.min()) < 0:
            raise ValueError("weights must not be negative")
        total = int(weights.sum())
    return simhash_from_votes(bit_votes(features, weights), total)


def bit_votes(features: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """For each of the 64 bits, the (weighted) number of features whose re-mixed hash has it set.

    Votes add up: the votes of a document's pieces sum to the document's votes, which is how a
    huge document's simhash is computed piece by piece (``segmented``).
    """
    features = np.asarray(features)
    n = int(features.shape[0])
    z = splitmix64(np.ascontiguousarray(features).view(np.uint64))
    octets = z.astype("<u8", copy=False).view(np.uint8).reshape(n, 8)
    ones = np.empty(64, dtype=np.int64)
    for j in range(8):
        # histogram of byte j over all features (weighted), then bit counts of that byte's 8 bits
        hist = np.bincount(octets[:, j], weights=weights, minlength=256)
        ones[8 * j: 8 * j + 8] = np.rint(hist).astype(np.int64) @ _BITS if weights is not None else hist @ _BITS
    return ones


def simhash_from_votes(ones: np.ndarray, total: int) -> int:
    """The simhash (signed 64-bit) given each bit's votes out of ``total``: a bit is 1 when more
    than half the (weighted) features have it; a tie gives 0."""
    bits = (2 * np.asarray(ones, dtype=np.int64) - total) > 0
    return int(np.packbits(bits, bitorder="little").view("<i8")[0])


def feature_hashes(units: np.ndarray) -> np.ndarray:
    """64-bit hashes (int64) of the simhash features of normalized ``units``: every 4-gram, or the
    whole sequence as one feature when it is shorter than that.

    The same values as ``fingerprint.kgram_hashes(units, 4, salt)``, computed directly as the
    4-term polynomial (no prefix sums over the whole document: this runs over every character).
    """
    n = int(units.shape[0])
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if n < FEATURE_GRAM or FEATURE_GRAM != 4:
        return kgram_hashes(units, min(FEATURE_GRAM, n), salt=FEATURE_SALT)
    x = mixed_units(units, FEATURE_SALT)
    with np.errstate(over="ignore"):
        h = x[3:] * _B3
        t = x[2:-1] * _B2
        h += t
        np.multiply(x[1:-2], _B1, out=t)
        h += t
        h += x[:-3]
        h ^= _U64(FEATURE_GRAM)
    return fmix64(h).view(np.int64)


def units_simhash(units: np.ndarray) -> int:
    """The simhash of a document given its normalized text units (``normalize.text.text_units``):
    signed 64-bit; 0 when it has no units."""
    return simhash64(feature_hashes(units))


def hamming(a: int, b: int) -> int:
    """Number of differing bits between two 64-bit values."""
    return bin((a ^ b) & 0xFFFFFFFFFFFFFFFF).count("1")


_POP8 = _BITS.sum(axis=1).astype(np.uint8)


def hamming_many(values: np.ndarray, other) -> np.ndarray:
    """Differing bits between each 64-bit value in ``values`` and ``other`` (a value or an array
    broadcastable against ``values``), as uint8."""
    x = np.bitwise_xor(np.asarray(values, dtype=np.int64), np.asarray(other, dtype=np.int64))
    x = np.ascontiguousarray(x).view(np.uint64)  # bitwise_count of a signed int counts |x|
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(x).astype(np.uint8, copy=False)
    octets = x.astype("<u8", copy=False).view(np.uint8).reshape(x.shape + (8,))
    return _POP8[octets].sum(axis=-1, dtype=np.uint8)
