"""Find the files to index and read them as text: walking, binary detection, decoding.

``iter_files`` walks the given paths (files or directories, recursively, in a stable order, never
following a symlink loop); ``read_source`` turns one file into a ``Source`` (decoded text plus a
content hash of its bytes) or a ``Skipped`` with a one-line reason. Nothing here raises for bad
input: every problem becomes a ``Skipped`` the caller reports.
"""
from __future__ import annotations

import codecs
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Union

__all__ = ["Source", "Skipped", "iter_files", "read_source", "decode_bytes", "content_hash"]

#: Files larger than this are skipped with a note (they would not fit the in-memory pipeline).
MAX_FILE_BYTES = 256 * 1024 * 1024

_IGNORED_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", ".tox", ".mypy_cache"}


@dataclass(frozen=True)
class Source:
    """A readable text file: its path, decoded text, raw size, encoding and content hash."""

    path: str
    text: str
    size: int
    encoding: str
    content_hash: str


@dataclass(frozen=True)
class Skipped:
    """A file that was not indexed, and why (one line)."""

    path: str
    reason: str


def content_hash(data: bytes) -> str:
    """Stable hash of raw bytes (hex): two files with the same bytes have the same hash."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def iter_files(paths: list[str | os.PathLike]) -> Iterator[Union[Path, Skipped]]:
    """Every regular file under ``paths``, resolved, each once; missing paths become ``Skipped``."""
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            yield Skipped(str(raw), "no such file or directory")
            continue
        if p.is_file():
            rp = p.resolve()
            if rp not in seen:
                seen.add(rp)
                yield rp
            continue
        visited_dirs: set[tuple[int, int]] = set()
        for root, dirs, files in os.walk(p, followlinks=True, onerror=None):
            try:
                st = os.stat(root)
            except OSError:
                continue
            key = (st.st_dev, st.st_ino)
            if key in visited_dirs:  # a symlink loop or a directory reached twice
                dirs[:] = []
                continue
            visited_dirs.add(key)
            dirs[:] = sorted(d for d in dirs if d not in _IGNORED_DIRS and not d.startswith("."))
            for name in sorted(files):
                fp = Path(root, name)
                try:
                    if not fp.is_file():
                        continue
                    rp = fp.resolve()
                except (OSError, RuntimeError):
                    yield Skipped(str(fp), "cannot resolve path (broken link?)")
                    continue
                if rp not in seen:
                    seen.add(rp)
                    yield rp


def decode_bytes(data: bytes) -> tuple[str, str] | None:
    """Decode bytes as text: (text, encoding), or None when the bytes look binary.

    UTF-8 (with or without BOM) first; UTF-16/32 when a BOM says so; otherwise Windows-1252
    (then Latin-1) for legacy text. NUL bytes or many control characters mean binary.
    """
    for bom, enc in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                     (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(enc), enc
            except UnicodeDecodeError:
                return None
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    sample = data[:65536]
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13))
    if controls > len(sample) * 0.05:
        return None
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def read_source(path: Path) -> Union[Source, Skipped]:
    """Read and decode one file, or say in one line why it is skipped."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return Skipped(str(path), f"too large ({size / 2**20:.0f} MiB > {MAX_FILE_BYTES // 2**20} MiB)")
        data = path.read_bytes()
    except PermissionError:
        return Skipped(str(path), "permission denied")
    except OSError as exc:
        return Skipped(str(path), f"cannot read ({exc.strerror or exc})")
    decoded = decode_bytes(data)
    if decoded is None:
        return Skipped(str(path), "binary or undecodable")
    text, enc = decoded
    return Source(str(path), text, len(data), enc, content_hash(data))
