"""Read one file as text: binary detection, decoding, a hash of its bytes.

``read_source`` turns one file into a ``Source`` (decoded text plus a content hash of its bytes)
or a ``Skipped`` with a one-line reason. Nothing here raises for bad input: every problem becomes
a ``Skipped`` the caller reports (``read_query_file``, for a file given on the command line, raises
a one-line ``WinnowError`` instead).
"""
from __future__ import annotations

import codecs
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from ..errors import WinnowError

__all__ = ["Source", "Skipped", "name_problem", "require_storable_name", "BAD_NAME", "read_source", "read_unchanged",
           "read_query_file", "decode_bytes", "content_hash", "lone_cr_as_lf", "MAX_FILE_BYTES"]

#: Files larger than this are skipped with a note (they would not fit the in-memory pipeline).
MAX_FILE_BYTES = 256 * 1024 * 1024


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


#: why a file whose name is not valid UTF-8 (e.g. Latin-1 names from an old zip archive) is skipped:
#: the index stores paths as UTF-8 text (DuckDB VARCHAR), so it could not name the file again
BAD_NAME = "file name is not valid UTF-8 (rename the file to index it)"


def name_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be stored in the index (its name is not valid UTF-8), or None."""
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:
        return BAD_NAME
    return None


def require_storable_name(path: str | os.PathLike) -> None:
    """Raise a one-line ``WinnowError`` when ``path``'s name cannot be stored or looked up."""
    if name_problem(path) is not None:
        raise WinnowError(f"{os.fspath(path)}: {BAD_NAME}")


def content_hash(data: bytes) -> str:
    """Stable hash of raw bytes (hex): two files with the same bytes have the same hash."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


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
    """Read and decode one file, or say in one line why it is skipped.

    The file is opened without blocking and checked to be a regular file on the open handle, so a
    path that became a named pipe or device after the walk is skipped instead of hanging.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except PermissionError:
        return Skipped(str(path), "permission denied")
    except OSError as exc:
        return Skipped(str(path), f"cannot read ({exc.strerror or exc})")
    try:
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                return Skipped(str(path), "not a regular file")
            if st.st_size > MAX_FILE_BYTES:
                return Skipped(str(path), f"too large ({st.st_size / 2**20:.0f} MiB > "
                                          f"{MAX_FILE_BYTES // 2**20} MiB)")
            data = fh.read()
    except PermissionError:
        return Skipped(str(path), "permission denied")
    except OSError as exc:
        return Skipped(str(path), f"cannot read ({exc.strerror or exc})")
    except MemoryError:
        return Skipped(str(path), "not enough memory to read it")
    decoded = decode_bytes(data)
    if decoded is None:
        return Skipped(str(path), "binary or undecodable")
    text, enc = decoded
    return Source(str(path), lone_cr_as_lf(text), len(data), enc, content_hash(data))


def read_unchanged(path: str | os.PathLike, stored_hash: str) -> str | None:
    """The text of the file at ``path`` if its bytes still have ``stored_hash`` (the content hash
    recorded when it was indexed), else None: a text stored under a document must be the one its
    fingerprints' offsets were computed on (``import`` and ``upgrade`` read files back this way)."""
    src = read_source(Path(path))
    if isinstance(src, Skipped) or src.content_hash != stored_hash:
        return None
    return src.text


def lone_cr_as_lf(text: str) -> str:
    """``text`` with classic Mac line ends (a CR not followed by LF) written as LF: the same
    length, so offsets stay those of the file, but lines are lines (for line numbers, and for
    code, where a line comment ends at the line end). CRLF is left as it is."""
    if "\r" not in text:
        return text
    import re

    return re.sub("\r(?!\n)", "\n", text)


def read_query_file(source, *, if_directory: str) -> Source:
    """Read a file that is not in the index (a query or comparison side), or raise a one-line
    ``WinnowError``: missing, a directory (``if_directory`` says why that is wrong here), or
    unreadable/binary."""
    path = Path(source)
    require_storable_name(path)
    if not path.exists():
        raise WinnowError(f"{source}: no such file, and not in the index")
    if path.is_dir():
        raise WinnowError(f"{source} {if_directory}")
    src = read_source(path)
    if isinstance(src, Skipped):
        raise WinnowError(f"{source}: {src.reason}")
    return src
