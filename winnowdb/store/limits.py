"""How much of the machine DuckDB may use for an index: its memory (``apply_memory_limit``) and
what it spills to disk (``apply_temp_limit``, in ``temp_directory``), set when ``dbfile`` attaches
the file; and what to tell a user who ran out of either (``resource_hint``).

Memory. DuckDB's default limit is 80% of the machine's memory, and a big join uses what it may:
`pairs --top 10` of a 1,000,000-document index took 19.7 GB of 23.5 GB, where with 6 GB it ran
as fast (82 s against 92 s) and with 2 GB 6% slower, spilling the rest (bench/RESULTS.md). An
index is opened with a quarter of the memory (at least ``MIN_MEMORY_BYTES``), or what
``WINNOWDB_MEMORY_LIMIT`` says (a DuckDB size: ``8GB``, ``500MB``).

Spill. DuckDB's default cap on what it spills is 90% of the free disk: a query that cannot
finish (at 1,000,000 documents, `duplicates` before it was rewritten) filled 50 GB of disk in two
minutes before it failed, and any other program writing to that disk failed meanwhile. What
winnowdb's commands spill grows with the index (1,000,000 documents under a 2 GB limit, as on a
machine of 8 GB: `pairs --top 0` 3.5 times the index file, `clusters` 2.4, `check` 2.35,
`pairs --top 10` 2.0; bench/RESULTS.md, Scale), so the cap is ``TEMP_FACTOR`` times the index's
size (its file, and for an add, what the add's text will add), at least ``MIN_TEMP_BYTES``, or
what ``WINNOWDB_TEMP_LIMIT`` says; never more than DuckDB's own cap.
"""
from __future__ import annotations

import os
import re
import shutil

import duckdb

from ..errors import WinnowError

__all__ = ["memory_bytes", "MEMORY_SHARE", "MIN_MEMORY_BYTES", "MEMORY_ENV", "default_memory_bytes", "memory_hint",
           "apply_memory_limit", "TEMP_FACTOR", "MIN_TEMP_BYTES", "TEMP_ENV", "INDEX_BYTES_PER_TEXT_BYTE",
           "temp_limit_bytes", "spill_hint", "resource_hint", "apply_temp_limit", "temp_directory"]


_UNITS = {"b": 1, "bytes": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,  # as DuckDB reads them: 1G is 953.6 MiB
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "pib": 2**50}


_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([A-Za-z]*)\s*")


def memory_bytes(setting: str) -> int | None:
    """DuckDB's memory_limit as it reads back ('18.7 GiB', '512.0 MiB', ...), or a size as a user
    gives it ('8GB', '500MB'), in bytes; None if it is not a size (e.g. no limit)."""
    m = _SIZE.fullmatch(setting)
    if m is None:
        return None
    try:
        return int(float(m.group(1)) * _UNITS[m.group(2).lower() or "b"])
    except KeyError:
        return None


#: the share of the machine's memory DuckDB may use for an index (module docstring)
MEMORY_SHARE = 0.25
#: but at least this much (DuckDB's own default is lower on a machine of under 2.5 GiB)
MIN_MEMORY_BYTES = 2 * 2**30
#: the environment variable that sets the limit instead (a DuckDB size such as 8GB)
MEMORY_ENV = "WINNOWDB_MEMORY_LIMIT"


def default_memory_bytes() -> int | None:
    """``MEMORY_SHARE`` of the machine's memory, at least ``MIN_MEMORY_BYTES``; None when the
    machine's memory is unknown (DuckDB's default then)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    return max(MIN_MEMORY_BYTES, int(total * MEMORY_SHARE))


def memory_hint() -> str:
    """What to tell a user whose command ran out of DuckDB's memory: how to give it more."""
    given = os.environ.get(MEMORY_ENV, "").strip()
    now = f"now {MEMORY_ENV}={given}" if given else \
        f"by default a quarter of this machine's memory, at least {MIN_MEMORY_BYTES // 2**30} GB"
    return f"give DuckDB more memory with {MEMORY_ENV} (e.g. {MEMORY_ENV}=8GB; {now})"


def apply_memory_limit(con) -> None:
    """Set the memory limit an index is opened with on the DuckDB instance of ``con``: the size
    ``WINNOWDB_MEMORY_LIMIT`` gives, as it is (one it refuses is a one-line error), else
    ``default_memory_bytes`` where that is below DuckDB's own limit (which follows a container's)."""
    given = os.environ.get(MEMORY_ENV, "").strip()
    if given:
        try:
            con.execute("SET memory_limit = ?", [given])
        except duckdb.Error:
            raise WinnowError(f"{MEMORY_ENV}={given!r} is not a memory size DuckDB takes (e.g. 8GB, 500MB)") from None
        return
    share = default_memory_bytes()
    now = memory_bytes(str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]))
    if share is not None and (now is None or share < now):
        con.execute("SET memory_limit = ?", [f"{share}B"])


#: DuckDB may spill this many times the index's size (module docstring): twice the most measured
TEMP_FACTOR = 8
#: but at least this much
MIN_TEMP_BYTES = 10 * 2**30
#: the environment variable that sets the cap instead (a DuckDB size such as 50GB)
TEMP_ENV = "WINNOWDB_TEMP_LIMIT"
#: an index's bytes per byte of text added, rounded up (100,000 generated documents: 2.1; real
#: text 2.6; the standard library, with the text family of code, 2.5)
INDEX_BYTES_PER_TEXT_BYTE = 3


def temp_limit_bytes(path: str, adding_bytes: int = 0) -> int:
    """The spill cap of the index file ``path`` (module docstring): ``TEMP_FACTOR`` times its size
    (its file, plus ``INDEX_BYTES_PER_TEXT_BYTE`` per byte of text an add is adding), at least
    ``MIN_TEMP_BYTES``."""
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    return max(MIN_TEMP_BYTES, TEMP_FACTOR * (size + INDEX_BYTES_PER_TEXT_BYTE * max(0, adding_bytes)))


def spill_hint() -> str:
    """What to tell a user whose command reached the spill cap: how to allow more."""
    given = os.environ.get(TEMP_ENV, "").strip()
    now = f"now {TEMP_ENV}={given}" if given else \
        f"by default {TEMP_FACTOR} times the index's size, at least {MIN_TEMP_BYTES // 2**30} GB"
    return (f"allow DuckDB more temporary disk space with {TEMP_ENV} (e.g. {TEMP_ENV}=100GB; {now}), "
            f"or {memory_hint()}")


def resource_hint(exc: BaseException) -> str | None:
    """For a DuckDB error that ran out of memory: how to give it more (``memory_hint``), or, when
    it reached the spill cap (``apply_temp_limit``), how to allow more (``spill_hint``); else None."""
    if not isinstance(exc, duckdb.OutOfMemoryException):
        return None
    return spill_hint() if "max_temp_directory_size" in str(exc) else memory_hint()


def apply_temp_limit(con, path: str, adding_bytes: int = 0) -> None:
    """Cap what DuckDB spills for the index file ``path`` on the DuckDB instance of ``con`` (its
    ``temp_directory`` set first): the size ``WINNOWDB_TEMP_LIMIT`` gives, as it is (one DuckDB
    refuses is a one-line error), else ``temp_limit_bytes`` where that is below DuckDB's own cap
    (90% of the free space of the disk it spills to)."""
    given = os.environ.get(TEMP_ENV, "").strip()
    if given:
        if memory_bytes(given) is None:
            raise WinnowError(f"{TEMP_ENV}={given!r} is not a size DuckDB takes (e.g. 50GB, 500MB)")
        try:
            con.execute("SET max_temp_directory_size = ?", [given])
        except duckdb.Error:
            raise WinnowError(f"{TEMP_ENV}={given!r} is not a size DuckDB takes (e.g. 50GB, 500MB)") from None
        return
    cap = temp_limit_bytes(path, adding_bytes)
    folder = str(con.execute("SELECT current_setting('temp_directory')").fetchall()[0][0])
    probe = folder
    while probe and not os.path.exists(probe):  # the folder is made on the first spill
        probe = os.path.dirname(probe)
    try:
        free = shutil.disk_usage(probe or ".").free
    except OSError:
        return
    if cap < 0.9 * free:
        con.execute("SET max_temp_directory_size = ?", [f"{cap}B"])


def temp_directory(path: str) -> str:
    """Where DuckDB spills for the index file ``path``: ``path.tmp`` beside it (as DuckDB does
    for a file it opens itself), or, where that folder cannot be written (an index on a read-only
    disk, opened to read), a folder of the system's temporary directory named after it."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.access(folder, os.W_OK | os.X_OK):
        return path + ".tmp"
    import hashlib
    import tempfile

    digest = hashlib.blake2b(os.path.realpath(path).encode(), digest_size=8).hexdigest()
    return os.path.join(tempfile.gettempdir(), f"winnowdb-{digest}.tmp")
