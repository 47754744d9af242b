"""The pixels of a PNG file (the screenshots Chromium takes), read with zlib and numpy only, so the
report tests can check what the page looks like without an imaging library."""
from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

__all__ = ["read_png", "rgb", "count_color"]


def unfilter_slowly(kind: int, row: bytes, up: bytes, bpp: int) -> bytes:
    """PNG's Average (3) and Paeth (4) filters undone byte by byte (each byte needs the last)."""
    cur = bytearray(row)
    for x in range(len(cur)):
        a = cur[x - bpp] if x >= bpp else 0
        b = up[x]
        if kind == 3:
            cur[x] = (cur[x] + ((a + b) >> 1)) & 0xFF
            continue
        c = up[x - bpp] if x >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        cur[x] = (cur[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    return bytes(cur)


def read_png(path: Path) -> np.ndarray:
    """The pixels of an 8-bit RGB or RGBA PNG that is not interlaced, as (height, width, 3)."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pos, header, idat = 8, None, []
    while pos < len(data):
        (n,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", data[pos + 8:pos + 8 + n])
        elif kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + n])
        pos += 12 + n
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, f"unexpected PNG format {header}"
    bpp = 3 if color == 2 else 4
    stride = width * bpp
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.uint8)
    for y in range(height):
        kind, row = int(raw[y, 0]), raw[y, 1:]
        if kind == 0:  # None
            cur = row.copy()
        elif kind == 1:  # Sub: a running sum along the row, per channel
            cur = (np.cumsum(row.reshape(width, bpp), axis=0, dtype=np.uint64) & 0xFF).astype(np.uint8).ravel()
        elif kind == 2:  # Up
            cur = row + prev
        else:
            cur = np.frombuffer(unfilter_slowly(kind, row.tobytes(), prev.tobytes(), bpp), np.uint8)
        out[y] = prev = cur
    return out.reshape(height, width, bpp)[:, :, :3]


def rgb(css: str) -> np.ndarray:
    """A CSS colour ``#rrggbb`` as an RGB triple."""
    return np.array([int(css[i:i + 2], 16) for i in (1, 3, 5)], np.uint8)


def count_color(pixels: np.ndarray, css: str) -> int:
    """How many pixels are exactly the colour ``css``."""
    return int((pixels == rgb(css)).all(axis=2).sum())
