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
from typing import Union, overload

from ..errors import WinnowError

__all__ = ["Source", "Skipped", "name_problem", "require_storable_name", "BAD_NAME", "read_source", "read_unchanged",
           "read_query_file", "decode_bytes", "content_hash", "lone_cr_as_lf", "MAX_FILE_BYTES"]

#: Files larger than this are skipped with a note (they would not fit the in-memory pipeline).
MAX_FILE_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Source:
    """A readable text file: its path, decoded text, raw size, encoding and content hash, and
    ``stamp``: (size, modification time, status change time) as the open file had them just
    before it was read (``ingest.unchanged``)."""

    path: str
    text: str
    size: int
    encoding: str
    content_hash: str
    stamp: tuple[int, int, int] = (-1, 0, 0)


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

    UTF-8 (with or without BOM) first; UTF-16/32 when a BOM says so. NUL bytes or many control
    characters mean binary. Only bytes that are none of these reach the encoding detector
    (``_detect``): Shift-JIS, GBK, EUC-KR, Windows-1251, ... are read in their own encoding, and
    Western legacy text as Windows-1252 (Latin-1 when it has bytes Windows-1252 leaves undefined).
    The same bytes always give the same text and encoding.
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
    return _detect(data)


#: what the detector's answer may never be for bytes that reach it: they are not UTF-8, and
#: UTF-16/32 without a BOM (and so without NUL bytes) would make any even-length text CJK
_NOT_DETECTED = frozenset({"ascii", "utf_8", "utf_7", "utf_16", "utf_16_be", "utf_16_le", "utf_32",
                           "utf_32_be", "utf_32_le"})


def _detect(data: bytes) -> tuple[str, str]:
    """(text, encoding) of legacy text bytes (not UTF-8, no BOM), with charset-normalizer.

    Windows-1252 (Latin-1 when the bytes hold one that Windows-1252 leaves undefined) stays the
    answer, as before there was a detector, unless the detector reads the bytes as text of
    another script (Japanese, Chinese, Korean, Cyrillic, Greek, Hebrew, Arabic, Thai, ...) that
    is strictly less garbled, by its own measure (``chaos``), than the Windows-1252 reading. The
    detector tells scripts apart well, but between the Latin code pages it guesses (measured: it
    reads French as cp1250 or ISO-8859-10, German as cp775, French with a stray byte as cp775,
    Danish as Korean johab, which is more garbled than Windows-1252), so a Latin-script answer is
    never taken from it. The encoding chosen must decode every byte (the detector samples a large
    file), else Windows-1252 / Latin-1 is used. The same bytes give the same answer every time:
    charset-normalizer is deterministic (imported here only, so UTF-8 never pays for it).
    """
    try:
        fallback, fallback_text = "cp1252", data.decode("cp1252")
    except UnicodeDecodeError:
        fallback, fallback_text = "latin_1", data.decode("latin-1")
    as_before = fallback_text, _NAMES.get(fallback, fallback)
    from charset_normalizer import from_bytes

    sample = _detection_sample(data)
    try:
        # every match, best first (not cp_exclusion: it changes the ranking, reading Korean as Thai)
        matches = [m for m in from_bytes(sample) if m.encoding not in _NOT_DETECTED]
        if not matches or fallback in matches[0].could_be_from_charset:
            return as_before
        best = matches[0]
        if _mostly_latin(sample.decode(best.encoding)):
            return as_before
        same = next((m for m in matches if fallback in m.could_be_from_charset), None)
        if same is None:  # not among the matches: skipped (a multi-byte encoding fitted) or too garbled
            same = from_bytes(sample, cp_isolation=[fallback]).best()
        if same is not None and same.chaos <= best.chaos:
            return as_before
        return data.decode(best.encoding), best.encoding
    except UnicodeDecodeError:  # the encoding found in the sample does not fit the whole file
        return as_before
    except Exception:  # pragma: no cover - a detector failure is no reason to skip a file
        return as_before


def _mostly_latin(text: str) -> bool:
    """Whether most non-ASCII letters of ``text`` (its first 64K characters) are Latin letters."""
    import unicodedata
    from collections import Counter

    latin = other = 0
    for ch, n in Counter(text[:1 << 16]).items():
        if ch >= "\x80" and ch.isalpha():
            if unicodedata.name(ch, "").startswith("LATIN"):
                latin += n
            else:
                other += n
    return latin >= other


#: how much of a large file the detector reads (its cost grows with the bytes it is given: a
#: 50 MB file took 3 s whole); the encoding it finds must still decode the whole file
_DETECT_BYTES = 1 << 18


def _detection_sample(data: bytes) -> bytes:
    """The first ``_DETECT_BYTES`` of ``data``, cut after a line end or space so that no
    multi-byte character is split (LF and space are never part of one in Shift-JIS, EUC-*,
    GBK / GB18030 or Big5); all of ``data`` when it is short or has no such place."""
    if len(data) <= _DETECT_BYTES:
        return data
    cut = max(data.rfind(b"\n", 0, _DETECT_BYTES), data.rfind(b" ", 0, _DETECT_BYTES))
    return data[:cut + 1] if cut > 0 else data


#: encodings recorded under the name winnowdb has always used for them
_NAMES = {"latin_1": "latin-1"}


@overload
def read_source(path: str | os.PathLike) -> Union[Source, Skipped]: ...
@overload
def read_source(path: str | os.PathLike, *, larger_than: int | None) -> Union[Source, Skipped, None]: ...
def read_source(path: str | os.PathLike, *, larger_than: int | None = None) -> Union[Source, Skipped, None]:
    """Read and decode one file, or say in one line why it is skipped; None, without reading it,
    when it is a regular file of more than ``larger_than`` bytes (``add``'s workers leave such a
    file to the main process: it may be a huge document, ``segmented``).

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
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Skipped(str(path), "not a regular file")
        if larger_than is not None and st.st_size > larger_than:
            return None
        if st.st_size > MAX_FILE_BYTES:
            return Skipped(str(path), f"too large ({st.st_size / 2**20:.0f} MiB > "
                                      f"{MAX_FILE_BYTES // 2**20} MiB)")
        data = _read_all(fd, st.st_size)
    except PermissionError:
        return Skipped(str(path), "permission denied")
    except OSError as exc:
        return Skipped(str(path), f"cannot read ({exc.strerror or exc})")
    except MemoryError:
        return Skipped(str(path), "not enough memory to read it")
    finally:
        os.close(fd)
    decoded = decode_bytes(data)
    if decoded is None:
        return Skipped(str(path), "binary or undecodable")
    text, enc = decoded
    return Source(str(path), lone_cr_as_lf(text), len(data), enc, content_hash(data),
                  (st.st_size, st.st_mtime_ns, st.st_ctime_ns))


def _read_all(fd: int, size: int) -> bytes:
    """Every byte of the open file ``fd``, whose size was ``size``: one plain ``read`` when that
    is still its size (a buffered file object costs a small file a third more), else reads up to
    the end of the file. The first read asks for one byte more than ``size``: a file that grew
    gives it, one that shrank (or a short read) gives less, and either is read on to its end."""
    data = os.read(fd, size + 1)
    if len(data) == size:
        return data
    more = os.read(fd, 1 << 20) if data else b""
    if not more:
        return data
    chunks = [data, more]
    while more:
        more = os.read(fd, 1 << 20)
        chunks.append(more)
    return b"".join(chunks)


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
