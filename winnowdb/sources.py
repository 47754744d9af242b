"""Find the files to index and read them as text: walking, binary detection, decoding.

``iter_files`` walks the given paths (files or directories, recursively, in a stable order, never
following a symlink loop); ``read_source`` turns one file into a ``Source`` (decoded text plus a
content hash of its bytes) or a ``Skipped`` with a one-line reason. Nothing here raises for bad
input: every problem becomes a ``Skipped`` the caller reports.
"""
from __future__ import annotations

import codecs
import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Union

__all__ = ["Source", "Skipped", "iter_files", "read_source", "read_unchanged", "read_query_file", "decode_bytes", "content_hash",
           "name_problem", "require_storable_name", "lone_cr_as_lf"]

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
        from .errors import WinnowError

        raise WinnowError(f"{os.fspath(path)}: {BAD_NAME}")


def content_hash(data: bytes) -> str:
    """Stable hash of raw bytes (hex): two files with the same bytes have the same hash."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _special_reason(path: Path) -> str | None:
    """Why ``path`` (which exists or is a link) is not a regular file, or None when it is one."""
    try:
        st = path.stat()  # follows symbolic links
    except OSError as exc:
        if path.is_symlink():
            return "symbolic link loop" if exc.errno == errno.ELOOP else "broken symbolic link"
        if isinstance(exc, PermissionError):
            return "permission denied"
        return f"cannot read ({exc.strerror or exc})"
    if stat.S_ISREG(st.st_mode):
        return None
    if stat.S_ISDIR(st.st_mode):
        return "is a directory"
    if stat.S_ISFIFO(st.st_mode):
        return "not a regular file (a named pipe)"
    if stat.S_ISSOCK(st.st_mode):
        return "not a regular file (a socket)"
    return "not a regular file (a device or special file)"


def iter_files(paths: list[str | os.PathLike]) -> Iterator[Union[Path, Skipped]]:
    """Every regular file under ``paths``, resolved, each once; problems become ``Skipped``.

    Missing paths, broken or looping symbolic links, named pipes, sockets, devices and
    directories that cannot be listed are reported (never opened, never silently dropped).
    """
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            reason = _special_reason(p) if p.is_symlink() else None
            yield Skipped(str(raw), reason or "no such file or directory")
            continue
        if not p.is_dir():
            reason = _special_reason(p)
            if reason is not None:
                yield Skipped(str(raw), reason)
                continue
            rp = p.resolve()
            if name_problem(rp) is not None:
                yield Skipped(str(raw), BAD_NAME)
                continue
            if rp not in seen:
                seen.add(rp)
                yield rp
            continue
        visited_dirs: set[tuple[int, int]] = set()
        walk_errors: list[OSError] = []
        for root, dirs, files in os.walk(p, followlinks=True, onerror=walk_errors.append):
            while walk_errors:  # a directory that could not be listed (e.g. no permission)
                exc = walk_errors.pop(0)
                why = "permission denied" if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
                yield Skipped(str(exc.filename or root), f"cannot list directory ({why})")
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
                reason = _special_reason(fp)
                if reason is not None:
                    yield Skipped(str(fp), reason)
                    continue
                try:
                    rp = fp.resolve()
                except (OSError, RuntimeError):
                    yield Skipped(str(fp), "cannot resolve path (broken link?)")
                    continue
                if name_problem(rp) is not None:
                    yield Skipped(str(fp), BAD_NAME)
                    continue
                if rp not in seen:
                    seen.add(rp)
                    yield rp
        while walk_errors:
            exc = walk_errors.pop(0)
            why = "permission denied" if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
            yield Skipped(str(exc.filename or p), f"cannot list directory ({why})")


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
    from .errors import WinnowError

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
