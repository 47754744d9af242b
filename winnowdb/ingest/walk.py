"""Find the files to index: walk the given paths in a stable order, each file once.

Directories are walked recursively (never following a symbolic-link loop), skipping version
control, cache and hidden folders; every problem (a missing path, a broken link, a named pipe,
a directory that cannot be listed, a name that is not valid UTF-8) becomes a ``Skipped`` with a
one-line reason, never an error. The index file itself is never a document.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple, Union

from .read import BAD_NAME, Skipped, name_problem

__all__ = ["Listed", "iter_files", "walk", "listed_bytes", "index_files", "paused_gc", "IGNORED_DIRS"]

#: folders never walked (version control, caches, virtual environments; hidden folders neither)
IGNORED_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", ".tox", ".mypy_cache"}

class Listed(NamedTuple):
    """A regular file a walk found: its resolved path, and its size, modification time and
    status change time (nanoseconds since the epoch) from the one ``stat`` the walk made of it,
    and ``seen_ns``: a time (since the epoch) taken before that ``stat`` (``unchanged`` weighs
    them)."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int
    seen_ns: int


def _listed(path: str, st: os.stat_result, seen_ns: int) -> Listed:
    return Listed(path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, seen_ns)


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


def _problem(raw: str) -> Skipped | None:
    """Why a named path that is not a directory cannot be indexed, or None."""
    p = Path(raw)
    if not p.exists():
        reason = _special_reason(p) if p.is_symlink() else None
        return Skipped(raw, reason or "no such file or directory")
    reason = _special_reason(p)
    return Skipped(raw, reason) if reason is not None else None


def _listing_failed(exc: OSError, where: str) -> Skipped:
    why = "permission denied" if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
    return Skipped(str(exc.filename or where), f"cannot list directory ({why})")


def _slow_file(path: str, seen_ns: int) -> Listed | Skipped:
    """A directory entry that is not a plain regular file (a symbolic link, a special file):
    checked and resolved the careful way."""
    fp = Path(path)
    reason = _special_reason(fp)
    if reason is not None:
        return Skipped(path, reason)
    try:
        rp = fp.resolve()
        st = rp.stat()
    except (OSError, RuntimeError):
        return Skipped(path, "cannot resolve path (broken link?)")
    return _listed(str(rp), st, seen_ns)


def iter_files(paths: list[str | os.PathLike]) -> Iterator[Union[Listed, Skipped]]:
    """Every regular file under ``paths`` as a ``Listed`` (resolved path, size in bytes,
    modification time), each once; problems become ``Skipped``.

    Missing paths, broken or looping symbolic links, named pipes, sockets, devices and
    directories that cannot be listed are reported (never opened, never silently dropped).
    Folders are listed with ``os.scandir`` in sorted order, depth first (each folder's files,
    then its sub-folders): a plain regular file costs one ``stat`` (its size and time) and no path
    resolution (its folder is resolved once); symbolic links are followed and resolved one by one.
    """
    seen: set[str] = set()

    def fresh(item):  # None for a file listed before (its name already checked)
        if isinstance(item, Skipped):
            return item
        if item.path in seen:
            return None
        seen.add(item.path)
        return item

    for raw in (os.fspath(p) for p in paths):
        if not os.path.isdir(raw):
            problem = _problem(raw)
            if problem is not None:
                yield problem
                continue
            seen_ns = time.time_ns()
            listed = _listed(str(Path(raw).resolve()), os.stat(raw), seen_ns)
            item = fresh(listed) if name_problem(listed.path) is None else Skipped(raw, BAD_NAME)
            if item is not None:
                yield item
            continue
        visited: set[tuple[int, int]] = set()
        stack = [raw]
        while stack:
            folder = stack.pop()
            seen_ns = time.time_ns()  # before the stat of any of its files
            try:
                st = os.stat(folder)
                with os.scandir(folder) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError as exc:
                yield _listing_failed(exc, folder)
                continue
            key = (st.st_dev, st.st_ino)
            if key in visited:  # a symbolic link loop, or a folder reached twice
                continue
            visited.add(key)
            real = os.path.realpath(folder)
            prefix = real if real.endswith(os.sep) else real + os.sep
            subfolders = []
            for entry in entries:
                try:
                    if entry.is_dir():  # follows a link to a folder, as os.walk(followlinks=True)
                        if entry.name not in IGNORED_DIRS and not entry.name.startswith("."):
                            subfolders.append(entry.path)
                        continue
                    if entry.is_file(follow_symlinks=False):  # plain: no link anywhere below real
                        item = _listed(prefix + entry.name, entry.stat(follow_symlinks=False), seen_ns)
                    else:
                        item = _slow_file(entry.path, seen_ns)
                except OSError:
                    item = _slow_file(entry.path, seen_ns)
                if not isinstance(item, Skipped) and name_problem(item.path) is not None:
                    item = Skipped(entry.path, BAD_NAME)
                item = fresh(item)
                if item is not None:
                    yield item
            stack.extend(reversed(subfolders))


@contextlib.contextmanager
def paused_gc():
    """Python's cyclic garbage collector paused for a block that makes many objects but no
    reference cycles (a walk of a million files makes a million tuples, whose allocations set off
    full collections of everything made so far: 4 of a re-add's 19 s), and restored as it was."""
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def walk(paths: Iterable[str], *, once: tuple[int, int, Callable[[int, int], object]] | None = None,
         ) -> list[tuple[Listed | Skipped, str | None]]:
    """Every file under ``paths`` once (a file named twice, or inside a named folder too, once),
    as a ``Listed`` (resolved path, size, times), with the resolved folder argument it was found
    under (for ``--submission-depth``).

    ``once``: (files, bytes, call): ``call(files, bytes)`` is made once, as soon as the walk has
    listed at least that many files of at least that many bytes in all (``add`` starts its
    worker processes then, so they load their kernels while the rest is walked)."""
    out = []
    seen: set[str] = set()
    files, size = 0, 0
    min_files, min_bytes, call = once if once is not None else (0, 0, None)
    with paused_gc():
        for raw in paths:
            root = str(Path(raw).resolve()) if os.path.isdir(raw) else None
            for item in iter_files([raw]):
                if not isinstance(item, Skipped):
                    if item.path in seen:
                        continue
                    seen.add(item.path)
                    if call is not None:
                        files, size = files + 1, size + item.size
                        if files >= min_files and size >= min_bytes:
                            call(files, size)
                            call = None
                out.append((item, root))
    return out


def listed_bytes(listing: list[tuple[Listed | Skipped, str | None]]) -> int:
    """The total size of the files a ``walk`` found (what an add may put into an index:
    ``open_index(adding_bytes=...)``)."""
    return sum(item.size for item, _ in listing if not isinstance(item, Skipped))


def index_files(db_path: str | os.PathLike):
    """A test of whether a file is the index itself (its DuckDB file, write-ahead log or a
    temporary of its creation): an index kept inside the folder it indexes is not a document."""
    from ..store.dbfile import creating_prefix

    db = Path(db_path).resolve()
    names = {db.name, db.name + ".wal"}
    creating = creating_prefix(db.name)

    folder = str(db.parent)
    prefix = folder if folder.endswith(os.sep) else folder + os.sep

    def own(path: str) -> bool:
        if not path.startswith(prefix):  # most files: one comparison
            return False
        name = path[len(prefix):]
        return os.sep not in name and (name in names or name.startswith(creating))

    return own
