"""Charikar's 64-bit simhash of a document, as used by Manku, Jain and Das Sarma (WWW 2007).

Each feature (here: the document's fingerprint hashes, a weighted set in which a hash occurring
several times weighs more; re-mixed first, since winnowing keeps minima, whose high bits are
biased) votes +weight on the bits set in its 64-bit hash and -weight on the
others; the simhash has a 1 wherever the sum is positive. Near-duplicate documents share most
features, so their simhashes differ in few bits. Vectorized with numpy; deterministic because
the feature hashes are.
"""
from __future__ import annotations

import numpy as np

__all__ = ["simhash64", "hamming"]


def simhash64(features: np.ndarray) -> int:
    """The simhash (as a signed 64-bit int) of an array of 64-bit feature hashes.

    Repeated features weigh as many times as they occur. An empty document gets 0.
    """
    if features.shape[0] == 0:
        return 0
    from .fingerprint import _splitmix64

    feats = _splitmix64(np.ascontiguousarray(features).view(np.uint64))
    votes = np.zeros(64, dtype=np.int64)
    for start in range(0, feats.shape[0], 1 << 16):  # bounded memory for huge documents
        chunk = feats[start:start + (1 << 16)]
        bits = np.unpackbits(chunk.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
        votes += 2 * bits.sum(axis=0, dtype=np.int64) - chunk.shape[0]
    value = 0
    for bit in np.flatnonzero(votes > 0):
        value |= 1 << int(bit)
    return value - (1 << 64) if value >= 1 << 63 else value


def hamming(a: int, b: int) -> int:
    """Number of differing bits between two 64-bit values."""
    return bin((a ^ b) & 0xFFFFFFFFFFFFFFFF).count("1")
