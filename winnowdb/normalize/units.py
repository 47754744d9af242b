"""The contract every normalizer keeps: a document becomes ``Normalized`` units, each mapped back
to the original text.

A normalizer is a function ``str -> Normalized`` (``text``, ``prose``, ``words``, ``code``: one
module each). Its units are integer ids (folded characters, word hashes or code tokens);
``start[i]``/``stop[i]`` are the original-text character offsets unit ``i`` came from, so a
fingerprint's k-gram can always be shown in the original text. ``code_points`` is how every
normalizer reads a string.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Normalized", "code_points", "empty", "units_bytes"]


@dataclass(frozen=True)
class Normalized:
    """A document as a sequence of units (folded characters, or tokens for code).

    ``units[i]`` is the unit's integer id; ``start[i]``/``stop[i]`` are the original-text character
    offsets it came from (stop exclusive), so a k-gram of units i..i+k-1 spans the original
    text ``start[i]:stop[i+k-1]``.
    """

    units: np.ndarray  # uint64
    start: np.ndarray  # int64
    stop: np.ndarray  # int64

    def __len__(self) -> int:
        return int(self.units.shape[0])


def units_bytes(units: np.ndarray, width: int = 8) -> memoryview:
    """``units`` as the bytes a digest of them hashes: each unit as ``width`` (4 or 8) bytes,
    little-endian (``settings.digest_width``; 4 only for units below 2**32, as the
    code points of ``prose`` and ``text`` are)."""
    if width == 8:
        return np.ascontiguousarray(units, dtype="<u8").data
    if width == 4:
        return units.astype("<u4").data
    raise ValueError(f"a unit digest takes 4 or 8 bytes per unit, not {width}")


def empty() -> Normalized:
    """A document with no units."""
    e = np.empty(0, dtype=np.int64)
    return Normalized(np.empty(0, dtype=np.uint64), e, e)


def code_points(text: str) -> np.ndarray:
    """The text's code points as a uint32 array (lone surrogates kept, never an error)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
