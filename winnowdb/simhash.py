"""Charikar's 64-bit simhash of a document, as used by Manku, Jain and Das Sarma (WWW 2007).

Features: every 4-gram of the document's normalized text (letters and digits, case and accents
folded: ``normalize.normalize_text``), weighted by how often it occurs. Each feature votes
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
"""
from __future__ import annotations

import numpy as np

from .fingerprint import _BASE, _splitmix64

__all__ = ["simhash64", "bit_votes", "simhash_from_votes", "document_simhash", "feature_hashes", "hamming", "hamming_many",
           "FEATURE_GRAM", "SIMHASH_VERSION"]

#: length of the character n-grams that are the simhash features
FEATURE_GRAM = 4
#: names the feature and hashing scheme; bump when it changes (stored simhashes would differ)
SIMHASH_VERSION = "char4-tf-splitmix-v2"
_SALT = 0x5117_4A54  # keeps the feature hashes apart from the fingerprint hashes
_U64 = np.uint64
# powers of the k-gram polynomial's base, for 4-grams (see feature_hashes)
_B1 = _BASE
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
    z = _splitmix64(np.ascontiguousarray(features).view(np.uint64))
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
    from .fingerprint import _fmix64, _mixed_units, kgram_hashes

    n = int(units.shape[0])
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if n < FEATURE_GRAM or FEATURE_GRAM != 4:
        return kgram_hashes(units, min(FEATURE_GRAM, n), salt=_SALT)
    x = _mixed_units(units, _SALT)
    with np.errstate(over="ignore"):
        h = x[3:] * _B3
        t = x[2:-1] * _B2
        h += t
        np.multiply(x[1:-2], _B1, out=t)
        h += t
        h += x[:-3]
        h ^= _U64(FEATURE_GRAM)
    return _fmix64(h).view(np.int64)


#: folded unit of each ASCII byte for ``normalize.normalize_text`` (a letter lower-cased, a digit
#: itself, anything else 0 = dropped); see ``_ascii_units``
_ASCII_FOLD = np.array([ord(chr(c).lower()) if chr(c).isalnum() else 0 for c in range(128)], dtype=np.uint8)


def _ascii_units(text: str) -> np.ndarray:
    """``normalize_text(text).units`` of an ASCII ``text`` (as uint8: every unit is below 128),
    without the offsets the simhash does not need."""
    folded = np.take(_ASCII_FOLD, np.frombuffer(text.encode("ascii"), dtype=np.uint8))
    return folded[folded != 0]


def document_simhash(text: str, normalized=None) -> int:
    """The simhash of a document's text (signed 64-bit; 0 when it has no letters or digits).

    ``normalized`` may pass ``normalize_text(text)`` when the caller already has it.
    """
    if normalized is not None:
        units = normalized.units
    elif text.isascii():  # most code and much text: one table lookup per byte
        units = _ascii_units(text)
    else:
        from .normalize import normalize_text

        units = normalize_text(text).units
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
