"""The index file on disk, around DuckDB: what is not a DuckDB file is refused before DuckDB
opens it, DuckDB's errors about the file become one line a user can act on, temporaries left by
a killed index creation are removed, DuckDB is kept offline (no extension downloads), and the file
is opened with the row groups lookups need (``connect_index``, as ``layout`` plans them), within
a share of the machine's memory (``apply_memory_limit``), spilling to a folder it can write
(``temp_directory``) no more than a few times the index's size (``apply_temp_limit``), its texts
stored so that one can be read alone (``texts_readable_one_by_one``).

Memory. DuckDB's default limit is 80% of the machine's memory, and a big join uses what it may:
`pairs --top 10` of a 1,000,000-document index took 19.7 GB of 23.5 GB, where with 6 GB it ran
as fast (82 s against 92 s) and with 2 GB 6% slower, spilling the rest (bench/RESULTS.md). An
index is opened with a quarter of the memory (at least ``MIN_MEMORY_BYTES``), or what
``WINNOWDB_MEMORY_LIMIT`` says (a DuckDB size: ``8GB``, ``500MB``).

Spill. DuckDB's default cap on what it spills is 90% of the free disk: a query that cannot
finish (at 1,000,000 documents, `duplicates` before it was rewritten) filled 50 GB of disk in two
minutes before it failed, and any other program writing to that disk failed meanwhile. What
winnowdb's commands spill is a share of the index's size (100,000 documents with a 1 GB memory
limit: `pairs --top 0` 0.9 GiB, `clusters` 0.6 GiB, against a 0.58 GB index; bench/RESULTS.md,
Scale), so the cap is ``TEMP_FACTOR`` times the index's size (its file, and for an add, what the
add's text will add), at least ``MIN_TEMP_BYTES``, or what ``WINNOWDB_TEMP_LIMIT`` says; never
more than DuckDB's own cap.

Row groups. An index file is attached with the rows per row group that ``layout`` plans for its
size (``layout.planned_row_group_rows``: small groups, so a lookup by hash reads few rows), and is
made with the block size it plans (``layout.planned_block_bytes``). DuckDB takes the
row group size as an option of ``ATTACH`` only (it is not stored in the file), so an index file is
always attached to an in-memory host database under the catalog name ``CATALOG`` and made the
default (``USE``): SQL names its tables as before. One process attaches a file once; every
``connect_index`` of it gets a connection (cursor) of that host, as ``duckdb.connect`` of one path
shares one database instance. A file opened with plain DuckDB stays readable and writable (its
new row groups are DuckDB's default size).
"""
from __future__ import annotations

import os
import re
import shutil
import threading
from pathlib import Path

import duckdb

from ..errors import WinnowError
from . import lifetime
from .layout import planned_row_group_rows

__all__ = ["describe_duckdb_error", "creating_prefix", "remove_stale_temporaries", "refuse_non_duckdb",
           "no_network_extensions", "lookups_by_value", "IN_FILTER_VALUES", "DUCKDB_MAGIC",
           "CATALOG", "connect_index", "disconnect_index", "MEMORY_SHARE", "MIN_MEMORY_BYTES", "MEMORY_ENV",
           "default_memory_bytes", "index_memory_bytes", "memory_hint", "apply_memory_limit", "temp_directory",
           "memory_bytes", "texts_readable_one_by_one", "TEMP_FACTOR", "MIN_TEMP_BYTES", "TEMP_ENV",
           "INDEX_BYTES_PER_TEXT_BYTE", "temp_limit_bytes", "apply_temp_limit", "spill_hint", "resource_hint"]



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


_opened_limits: dict[str, int | None] = {}  # real path -> the memory limit it was attached with


def index_memory_bytes(path: str) -> int | None:
    """The memory limit (bytes) the index file ``path`` was opened with in this process
    (``apply_memory_limit``: what ``WINNOWDB_MEMORY_LIMIT`` says, else a share of the memory, or
    DuckDB's own limit where that is lower, as in a container); None when it is not open here or
    the limit is not a size."""
    return _opened_limits.get(os.path.realpath(path))


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


#: DuckDB may spill this many times the index's size (module docstring)
TEMP_FACTOR = 4
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


#: the catalog (database) name an index file is attached under
CATALOG = "winnowdb"

_hosts: dict[str, list] = {}  # real path -> [host connection, read_only, connections handed out]
_owner: dict[int, str] = {}  # id of a connection handed out -> the real path of its file
_hosts_lock = threading.Lock()


def connect_index(path: str, read_only: bool = False, adding_bytes: int = 0) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection to the index file ``path`` (created if missing and not ``read_only``),
    its catalog the default, its writes in row groups of ``row_group_rows`` rows (for the file's
    size, plus what ``adding_bytes`` of input text will add to it: an add that makes a large index
    from nothing writes the large row groups from its start), spilling to
    ``path.tmp`` (as DuckDB does for a file it opens itself), offline (``no_network_extensions``).

    Raises ``duckdb.Error`` as ``duckdb.connect`` would (``describe_duckdb_error`` words it); a
    file this process already has open the other way (read-only against writable) is refused
    with a ``WinnowError``. Give the connection back with ``disconnect_index``.
    """
    key = os.path.realpath(path)
    with _hosts_lock:
        entry = _hosts.get(key)
        if entry is None:
            host = duckdb.connect()
            try:
                no_network_extensions(host)
                texts_readable_one_by_one(host)
                host.execute("SET temp_directory = ?", [temp_directory(path)])
                apply_memory_limit(host)
                apply_temp_limit(host, path, adding_bytes)
                _opened_limits[key] = memory_bytes(str(host.execute("SELECT current_setting('memory_limit')")
                                                       .fetchall()[0][0]))
                mode = "READ_ONLY, " if read_only else ""
                rows = planned_row_group_rows(path, adding_bytes)
                host.execute(f"ATTACH ? AS {CATALOG} ({mode}ROW_GROUP_SIZE {rows})", [path])
            except BaseException:
                host.close()
                raise
            entry = _hosts[key] = [host, read_only, 0]
        elif entry[1] != read_only:
            how = "read-only" if entry[1] else "for writing"
            raise WinnowError(f"index {path} is already open {how} in this process; close it first")
        con = entry[0].cursor()
        try:
            con.execute(f"USE {CATALOG}")
        except BaseException:
            con.close()
            if entry[2] == 0:
                entry[0].close()
                del _hosts[key]
            raise
        entry[2] += 1
        _owner[id(con)] = key
    return con


def disconnect_index(con: duckdb.DuckDBPyConnection) -> None:
    """Close a connection ``connect_index`` gave; the last one of a file detaches it (DuckDB
    checkpoints it: the file is complete, with no WAL). Any other connection is just closed.

    In a process that ends at once when its command is done (the CLI: ``lifetime.end_at_once``),
    the file is detached (checkpointed, its lock released) but its in-memory host is left for the
    exit to free (``lifetime``), unless DuckDB's temporary folder for it exists: closing the host
    then removes the files DuckDB spilled there."""
    with _hosts_lock:
        key = _owner.pop(id(con), None)
        con.close()
        if key is None:
            return
        entry = _hosts[key]
        entry[2] -= 1
        if entry[2] == 0:
            del _hosts[key]
            host = entry[0]
            if lifetime.ends_at_once() and not _spilled(host):
                try:
                    host.execute(f"USE memory; DETACH {CATALOG}")
                except BaseException:
                    try:
                        host.close()
                    except duckdb.Error:
                        pass  # the detach's error is the one to report
                    raise
                _left_for_exit.append(host)
                return
            host.close()


_left_for_exit: list[duckdb.DuckDBPyConnection] = []  # hosts whose file is detached, for the exit to free


def _spilled(host: duckdb.DuckDBPyConnection) -> bool:
    """Whether DuckDB's temporary folder for the host's index exists (it spilled there, or
    another process did): the host is then closed, so that DuckDB removes what it wrote."""
    try:
        folder = str(host.execute("SELECT current_setting('temp_directory')").fetchall()[0][0])
    except duckdb.Error:
        return True
    return os.path.exists(folder)


def describe_duckdb_error(path: str, exc: Exception, read_only: bool = False) -> str:
    """One line for a user about a DuckDB error opening (or creating) the index at ``path``."""
    msg = str(exc)
    low = msg.lower()
    first = msg.strip().splitlines()[0] if msg.strip() else type(exc).__name__
    if "could not set lock" in low or "conflicting lock" in low:
        m = re.search(r"\(PID (\d+)\)", msg)
        holder = f"process {m.group(1)}" if m else "another process"
        if read_only:  # read-only opens share the lock, so the holder is writing
            return (f"index {path} is in use by another process ({holder} is writing to it; DuckDB "
                    f"lets no other process read an index while it is being written); try again "
                    f"when it has finished")
        return (f"index {path} is in use by another process ({holder} has it open); try again when "
                f"it has finished")
    if "corrupt" in low or "checksum" in low:
        return (f"index {path} is damaged ({first}); re-create it by adding the files to a new "
                f"index (`winnowdb check` lists what can still be read)")
    if "not a valid duckdb" in low or "unable to open database" in low and "valid" in low or "magic" in low:
        return f"{path} is not a winnowdb index (not a DuckDB database file)"
    if "permission denied" in low:
        return f"cannot open index {path}: permission denied"
    if "read-only" in low or "read only" in low:
        return f"cannot write to index {path}: it is read-only"
    if "no such file or directory" in low or "cannot open file" in low and "directory" in low:
        return f"cannot create index {path}: its folder does not exist"
    if "out of memory" in low:
        return f"cannot open index {path}: {first}; {memory_hint()}"
    return f"cannot open index {path}: {first}"


def creating_prefix(base: str) -> str:
    """The name prefix of the temporary an index named ``base`` is built under (``Store``)."""
    return f".{base}.creating-"


def remove_stale_temporaries(folder: str, base: str) -> None:
    """Delete temporaries left by index creations that were killed (their process is gone)."""
    prefix = creating_prefix(base)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not name.startswith(prefix):
            continue
        try:
            pid = int(name[len(prefix):].split("-", 1)[0])
            os.kill(pid, 0)
            continue  # still running
        except ProcessLookupError:
            pass
        except (ValueError, PermissionError, OSError):
            continue
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass


#: DuckDB database files carry these bytes at offset 8 of their first header
DUCKDB_MAGIC = b"DUCK"


def refuse_non_duckdb(path: str) -> None:
    """Raise ``WinnowError`` unless ``path`` starts like a DuckDB database file.

    Checked before DuckDB sees the file: given another kind of database (SQLite, say) DuckDB would
    try to download and load an extension to read it.
    """
    if not Path(path).is_file():  # a named pipe would block the read below
        raise WinnowError(f"{path} is not a winnowdb index (not a regular file)")
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except PermissionError:
        raise WinnowError(f"cannot open index {path}: permission denied") from None
    except OSError as exc:
        raise WinnowError(f"cannot open index {path}: {exc.strerror or exc}") from None
    if head[8:12] == DUCKDB_MAGIC:
        return
    if head.startswith(b"SQLite format 3\x00"):
        raise WinnowError(f"{path} is not a winnowdb index (it is a SQLite database)")
    raise WinnowError(f"{path} is not a winnowdb index (not a DuckDB database file)")


def texts_readable_one_by_one(con: duckdb.DuckDBPyConnection) -> None:
    """Never let DuckDB compress strings with ZSTD in what this instance writes. DuckDB picks ZSTD
    for long strings (the texts of code files and of real documents: most are past FSST's 4 KB),
    and compresses a whole vector of 2,048 of them together, with no way to read one: fetching a
    query's ten hits decompressed every text in their vectors (970 standard-library files: 14 MB,
    41 ms of a 112 ms query). Without it, a long text is stored as it is (a short one still gets
    DICT_FSST) and read alone; texts take ~3.5x the room ZSTD gave them (bench/RESULTS.md, Read
    path). Texts an older winnowdb wrote keep ZSTD until DuckDB rewrites their row group."""
    try:
        con.execute("SET disabled_compression_methods = 'zstd'")
    except duckdb.Error:
        pass


#: the most values a join's build side may hold for DuckDB to push them into the scan of the other
#: side as an IN filter, which the zone maps of hash-ordered fingerprints turn into reading only
#: the row groups that can hold them (a query looks up a few hundred to a few thousand hashes)
IN_FILTER_VALUES = 10_000


def lookups_by_value(con: duckdb.DuckDBPyConnection) -> None:
    """Let DuckDB push up to ``IN_FILTER_VALUES`` values of a join's small side into the scan of
    the other side as an IN filter."""
    try:
        con.execute(f"SET dynamic_or_filter_threshold = {IN_FILTER_VALUES}")
    except duckdb.Error:  # a DuckDB without the setting: lookups scan more, nothing else changes
        pass


def no_network_extensions(con: duckdb.DuckDBPyConnection) -> None:
    """Never let DuckDB download or auto-load extensions for what an index file contains; and
    never let it print its own progress bar for a long query (winnowdb draws its own on stderr;
    DuckDB's would land in the middle of a command's output)."""
    for setting in ("autoinstall_known_extensions", "autoload_known_extensions", "enable_progress_bar"):
        try:
            con.execute(f"SET {setting} = false")
        except duckdb.Error:
            pass
