"""Find the files to index: walk the given paths in a stable order, each file once.

Directories are walked recursively (never following a symbolic-link loop), skipping version
control, cache and hidden folders; every problem (a missing path, a broken link, a named pipe,
a directory that cannot be listed, a name that is not valid UTF-8) becomes a ``Skipped`` with a
one-line reason, never an error. The index file itself is never a document.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Iterable, Iterator, Union

from .read import BAD_NAME, Skipped, name_problem

__all__ = ["iter_files", "walk", "index_files", "IGNORED_DIRS"]

#: folders never walked (version control, caches, virtual environments; hidden folders neither)
IGNORED_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", ".tox", ".mypy_cache"}

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
            dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS and not d.startswith("."))
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


def walk(paths: Iterable[str]) -> list[tuple[Path | Skipped, Path | None]]:
    """Every file under ``paths`` once (a file named twice, or inside a named folder too, once),
    with the folder argument it was found under (for ``--submission-depth``)."""
    out = []
    seen: set[Path] = set()
    for raw in paths:
        root = Path(raw).resolve() if Path(raw).is_dir() else None
        for item in iter_files([raw]):
            if isinstance(item, Path):
                if item in seen:
                    continue
                seen.add(item)
            out.append((item, root))
    return out


def index_files(db_path: str | os.PathLike):
    """A test of whether a file is the index itself (its DuckDB file, write-ahead log or a
    temporary of its creation): an index kept inside the folder it indexes is not a document."""
    from ..store.dbfile import creating_prefix

    db = Path(db_path).resolve()
    names = {db.name, db.name + ".wal"}
    creating = creating_prefix(db.name)

    def own(path: Path) -> bool:
        return path.parent == db.parent and (path.name in names or path.name.startswith(creating))

    return own
