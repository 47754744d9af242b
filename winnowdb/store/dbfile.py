"""The index file on disk, around DuckDB: what is not a DuckDB file is refused before DuckDB
opens it, DuckDB's errors about the file become one line a user can act on, temporaries left by
a killed index creation are removed, DuckDB is kept offline (no extension downloads), and the file
is opened with the row groups lookups need (``connect_index``, as ``layout`` plans them), within
the memory and spill that ``limits`` allows, its texts stored so that one can be read alone
(``texts_readable_one_by_one``).

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
import threading
import uuid
from pathlib import Path

import duckdb

from ..errors import WinnowError
from . import lifetime, schema
from .layout import planned_block_bytes, planned_row_group_rows
from .limits import apply_memory_limit, apply_temp_limit, memory_bytes, memory_hint, temp_directory

__all__ = ["create_index_file", "describe_duckdb_error", "creating_prefix", "remove_stale_temporaries",
           "refuse_non_duckdb", "no_network_extensions", "lookups_by_value", "IN_FILTER_VALUES", "DUCKDB_MAGIC",
           "CATALOG", "connect_index", "disconnect_index", "index_memory_bytes", "texts_readable_one_by_one"]


_opened_limits: dict[str, int | None] = {}  # real path -> the memory limit it was attached with


def index_memory_bytes(path: str) -> int | None:
    """The memory limit (bytes) the index file ``path`` was opened with in this process
    (``apply_memory_limit``: what ``WINNOWDB_MEMORY_LIMIT`` says, else a share of the memory, or
    DuckDB's own limit where that is lower, as in a container); None when it is not open here or
    the limit is not a size."""
    return _opened_limits.get(os.path.realpath(path))


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


def create_index_file(path: str, settings: dict[str, str], adding_bytes: int = 0) -> None:
    """Create a new index at ``path`` atomically: built complete under a temporary name, then
    hard-linked into place (which fails if ``path`` appeared meanwhile), so a crash during
    creation never leaves a half-made file at ``path`` and two processes creating the same
    index never overwrite each other; in blocks as ``layout.planned_block_bytes`` plans them, its
    tables made by ``schema.create_index`` with ``settings``."""
    folder, base = os.path.split(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise WinnowError(f"cannot create index {path}: folder {folder} does not exist")
    remove_stale_temporaries(folder, base)
    tmp = os.path.join(folder, f"{creating_prefix(base)}{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        try:
            con = duckdb.connect(tmp, config={"default_block_size": str(planned_block_bytes(adding_bytes))})
        except duckdb.Error as exc:
            raise WinnowError(describe_duckdb_error(path, exc).replace("open index", "create index")) from None
        try:
            schema.create_index(con, settings)
        finally:
            con.close()  # a clean close checkpoints: the file is complete, with no WAL
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created it first: use theirs
        except OSError:  # no hard links on this file system: rename, unless it appeared
            if not os.path.exists(path):
                os.replace(tmp, path)
    except PermissionError:
        raise WinnowError(f"cannot create index {path}: permission denied") from None
    finally:
        for leftover in (tmp, tmp + ".wal"):
            try:
                os.unlink(leftover)
            except OSError:
                pass


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
