"""The DuckDB index file: open or create it, read its settings, run the ``sql/`` queries on it.

One index is one DuckDB file. Its settings (k, w, normalizer, hash and schema versions) are fixed
when it is created; every later use is checked against them (``settings.IndexSettings``). Every
question is a file in ``sql/``, run with bound parameters (``run``, ``records``, ``columns``,
``value``); relations the caller holds in memory (numpy columns) are lent to a query with
``relations``. The store package is the only place that talks to DuckDB.

Reliability (docs/guarantees.md): a new index is created atomically (built under a temporary
name, then linked into place); a file that does not start like a DuckDB database is refused
before DuckDB sees it, DuckDB may not fetch extensions, and its lock errors become "in use by
another process" (``dbfile``; DuckDB never waits on the lock); older schemas are upgraded in one
transaction, newer ones refused (``schema``); read-only opens use this version's views (as
temporary views); Ctrl-C during a write rolls it back and surfaces as ``KeyboardInterrupt``
(holding Ctrl-C around a commit is ``interrupts``' job).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Mapping

import duckdb

from ..errors import WinnowError
from ..settings import IndexSettings
from . import schema, sqlfiles
from .dbfile import (
    connect_index,
    create_index_file,
    describe_duckdb_error,
    disconnect_index,
    lookups_by_value,
    no_network_extensions,
    refuse_non_duckdb,
    remove_stale_temporaries,
)
from .interrupts import is_interrupt
from .limits import apply_memory_limit, resource_hint

__all__ = ["Store", "DEFAULT_DB", "MEMORY"]

DEFAULT_DB = "winnowdb.duckdb"
#: the path of an index kept in memory (never written to disk)
MEMORY = ":memory:"


class Store:
    """An open index file. Use ``Store.open`` (or ``Store.in_memory``); close with ``close()`` or
    a ``with`` block."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: str, read_only: bool):
        self._con = con
        self.path = path
        self.read_only = read_only
        self.settings = IndexSettings(schema.read_settings(con))
        self.upgraded_from: int | None = None  # set when opening upgraded an older schema

    # ----------------------------------------------------------------- opening
    @classmethod
    def open(cls, path: str | os.PathLike, *, read_only: bool = False, create: bool = False, adding_bytes: int = 0,
             settings: dict[str, str] | None = None, given: Mapping[str, object] | None = None) -> "Store":
        """Open (or with ``create``, create) the index at ``path`` (``adding_bytes``: connect_index).

        ``settings`` are the values a new index gets (a new file, or an existing DuckDB file
        without tables); for an existing index, any of the ``FIXED_SETTINGS`` in ``given``
        (default: ``settings``) must match what the index was created with.
        """
        path = str(path)
        if path == MEMORY:  # an index that lives in memory only, for the Python API and tests
            if read_only:
                raise WinnowError("an in-memory index cannot be opened read-only")
            return cls.in_memory(settings or {})
        exists = Path(path).exists()
        if not exists and not create:
            raise WinnowError(f"no index at {path} (create one with `winnowdb add PATH`)")
        if exists and Path(path).is_dir():
            raise WinnowError(f"{path} is a directory, not an index file")
        if not exists and read_only:
            raise WinnowError(f"no index at {path}")
        if not exists:
            create_index_file(path, settings or {}, adding_bytes)
        else:
            refuse_non_duckdb(path)
            if not read_only:  # tidy up after a creation that was killed
                remove_stale_temporaries(*os.path.split(os.path.abspath(path)))
        try:
            con = connect_index(path, read_only=read_only, adding_bytes=adding_bytes)
        except duckdb.Error as exc:
            raise WinnowError(describe_duckdb_error(path, exc, read_only)) from None
        try:
            lookups_by_value(con)
            tables = _table_names(con)
            if "settings" not in tables:
                if tables or not create or read_only:
                    raise WinnowError(f"{path} is a DuckDB file but not a winnowdb index")
                schema.create_index(con, settings or {})  # an empty DuckDB file: make it an index
            store = cls(con, path, read_only)
            store.upgraded_from = schema.check_version(con, store.settings, path, read_only)
            store.refresh_settings()
            wanted = settings if given is None else given
            if wanted:
                problem = store.settings.mismatch(wanted, path)
                if problem:
                    raise WinnowError(problem)
            store._views(temporary=read_only)
            return store
        except duckdb.Error as exc:
            disconnect_index(con)
            raise WinnowError(describe_duckdb_error(path, exc, read_only)) from None
        except BaseException:  # a failed upgrade, Ctrl-C, ...: never leave the file attached
            disconnect_index(con)
            raise

    @classmethod
    def in_memory(cls, settings: dict[str, str]) -> "Store":
        """A new, empty index held in memory (never a file) with these settings (the Python API's
        ``:memory:``, and the Spark fingerprint job's private index per batch of files)."""
        con = duckdb.connect(MEMORY)
        no_network_extensions(con)
        lookups_by_value(con)
        schema.create_index(con, {k: v for k, v in settings.items()
                                  if k not in ("schema_version", "created_by", "created_at")})
        store = cls(con, MEMORY, False)
        store._views()
        return store

    def _views(self, temporary: bool = False) -> None:
        digest = schema.create_views(self._con, schema.read_meta(self._con), temporary=temporary)
        if digest is not None:
            with self.transaction() as con:
                schema.write_meta(con, schema.VIEWS_DIGEST, digest)

    def close(self) -> None:
        disconnect_index(self._con)

    def interrupt(self) -> None:
        """Stop the query running on this index in another thread (it raises there)."""
        self._con.interrupt()

    def progress(self) -> float:
        """How far the statement running on this index's connection has come, in percent, as
        DuckDB estimates it (from the rows its scans have read); -1 when none runs or while
        ``tracking_progress`` is off. Safe to call from another thread while it runs."""
        try:
            return float(self._con.query_progress())
        except duckdb.Error:
            return -1.0

    @contextmanager
    def tracking_progress(self):
        """DuckDB tracks the progress of this connection's statements for ``progress`` within the
        block, without printing its own bar (off otherwise: ``dbfile.no_network_extensions``)."""
        self._con.execute("SET enable_progress_bar = true; SET enable_progress_bar_print = false")
        try:
            yield self
        finally:
            try:
                self._con.execute("SET enable_progress_bar = false")
            except duckdb.Error:  # the connection is closed or busy: nothing is left to track
                pass

    @contextmanager
    def second_connection(self):
        """A ``Store`` of the same index on a connection of its own (DuckDB's configuration
        shared), for the block: its transactions may run beside this one's, in another thread."""
        con = self._con.cursor()
        try:
            catalog = self._con.execute("SELECT current_database()").fetchall()[0][0]
            con.execute(f'USE "{catalog}"')
            other = Store.__new__(Store)
            other.__dict__.update(self.__dict__, _con=con)  # settings, path, ...: this store's
            yield other
        finally:
            con.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def is_memory(self) -> bool:
        """Whether this index lives in memory only (nothing written to disk)."""
        return self.path == MEMORY

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection, for the store package's own modules (writes, checks, export)."""
        return self._con

    # ----------------------------------------------------------------- settings
    def refresh_settings(self) -> None:
        """Read the stored settings again (after a write that may have changed them)."""
        self.settings = IndexSettings(schema.read_settings(self._con))

    def set_setting(self, key: str, value: str) -> None:
        """Store one setting (replacing its value) in one transaction."""
        with self.transaction() as con:
            schema.write_setting(con, key, value)
        self.refresh_settings()

    def delete_setting(self, key: str) -> None:
        """Remove one setting in one transaction."""
        with self.transaction() as con:
            schema.remove_setting(con, key)
        self.refresh_settings()

    # ----------------------------------------------------------------- queries
    def run(self, name: str, /, *, limit: int | None = None, **params: Any) -> duckdb.DuckDBPyConnection:
        """Execute ``sql/<name>.sql`` with bound parameters; returns the cursor.

        ``limit`` (a positive int) keeps the first rows of a query that ends with ORDER BY.
        """
        sql = sqlfiles.load(name)
        bound = sqlfiles.bind(sql, params)
        if limit is not None and int(limit) > 0:
            sql = sqlfiles.with_limit(sql, int(limit))
        return self._con.execute(sql, bound)

    def checkpoint(self) -> bool:
        """Write what committed transactions changed into the file (``sql/checkpoint.sql``),
        freeing the blocks their deletes left and what those pinned (``store/room.py``); False
        when DuckDB refuses because another connection of this process is inside a transaction
        (the checkpoint is then left for later: nothing is lost)."""
        try:
            self.run("checkpoint")
        except duckdb.Error:
            return False
        return True

    def records(self, name: str, /, *, limit: int | None = None, **params: Any) -> list[dict]:
        """The rows of ``sql/<name>.sql`` as dicts (column name -> value)."""
        cur = self.run(name, limit=limit, **params)
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    def rows(self, name: str, /, **params: Any) -> list[tuple]:
        """The rows of ``sql/<name>.sql`` as tuples."""
        return self.run(name, **params).fetchall()

    def columns(self, name: str, /, **params: Any) -> dict:
        """The result of ``sql/<name>.sql`` as numpy columns (column name -> array)."""
        import numpy as np

        return {k: np.asarray(v) for k, v in self.run(name, **params).fetchnumpy().items()}

    def arrow(self, name: str, /, **params: Any):
        """The result of ``sql/<name>.sql`` as an Arrow table."""
        return self.run(name, **params).to_arrow_table()

    def value(self, name: str, /, **params: Any):
        """The single value of ``sql/<name>.sql`` (first column of its first row; None if none)."""
        rows = self.run(name, **params).fetchall()
        return rows[0][0] if rows else None

    @contextmanager
    def relations(self, **tables):
        """Lend relations to the queries run inside the block: name -> dict of equal-length numpy
        columns (or Arrow data), registered with DuckDB and unregistered however the block ends."""
        with sqlfiles.registered(self._con, **tables):
            yield self

    def temp_table(self, table: str, name: str, /, **params: Any) -> None:
        """``CREATE TEMP TABLE table AS`` the query ``sql/<name>.sql`` (works on a read-only index)."""
        sql = sqlfiles.load(name)
        self._con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS {sql}", sqlfiles.bind(sql, params))

    def drop_temp(self, table: str) -> None:
        self._con.execute(f"DROP TABLE IF EXISTS temp.{table}")

    def write_rows(self, name: str, path: str | os.PathLike, columns: list[str], fmt: str, /, *,
                   limit: int | None = None, **params: Any) -> int:
        """Write ``columns`` of ``sql/<name>.sql``'s result, in its order, to ``path`` as CSV or a
        JSON array (``fmt``); the number of rows. DuckDB writes the file itself (``output``): no
        Python row is built, which matters for hundreds of thousands of pairs."""
        from .output import write_query

        return write_query(self._con, name, path, columns, fmt, limit=limit, params=params)

    def user_sql(self, query: str) -> tuple[list[str], list[tuple]]:
        """Run a user's ad-hoc SQL (``winnowdb sql``); (column names, rows). One-line errors."""
        try:
            cur = self._con.execute(query)
        except duckdb.Error as exc:
            hint = resource_hint(exc)
            first = str(exc).splitlines()[0]
            raise WinnowError(f"SQL error: {first.rstrip('.')}; {hint}" if hint else f"SQL error: {first}") from None
        if cur is None:  # nothing but white space, comments or semicolons
            raise WinnowError("no SQL statement to run (e.g. winnowdb sql \"SELECT COUNT(*) FROM documents\")")
        if cur.description is None:
            return [], []
        return [d[0] for d in cur.description], cur.fetchall()

    def table_names(self) -> set[str]:
        """Names of the tables and views in the index's main schema."""
        return _table_names(self._con)

    # ----------------------------------------------------------------- what add needs to know
    def documents_by_path(self, paths: list[str]) -> dict[str, tuple]:
        """path -> (doc, content_hash, kind, bytes, mtime_ns, ctime_ns, label, submission) for
        the given paths that are indexed."""
        if not paths:
            return {}
        with self.relations(wanted_paths=_paths(paths)):
            rows = self.rows("documents_by_path")
        return {r[0]: tuple(r[1:]) for r in rows}

    def submission_ids(self, names: list[str]) -> dict[str, int]:
        """The ids of those of the submissions ``names`` the index has."""
        if not names:
            return {}
        import numpy as np

        with self.relations(wanted_names={"name": np.array(names, dtype=object)}):
            return {name: int(sub) for name, sub in self.rows("submission_ids")}

    def pending_documents(self) -> int:
        """How many documents a killed add committed whose fingerprints are not stored yet
        (queries do not see them; the next add stores them)."""
        return int(self.value("pending_count"))

    def folder_submissions(self) -> dict[str, str | None]:
        """Folder submissions -> the label all their files share (or None)."""
        return dict(self.rows("folder_submissions"))

    def next_doc_id(self) -> int:
        """The id of the next new document: above every id this index has ever given, so the id
        of a removed (or replaced) document is never reused and nothing that still names it (a
        clusters snapshot, a user's saved query results) can point at another document."""
        return int(self.value("next_doc_id"))

    def default_max_df(self) -> int:
        """The default --max-df of this index (``stats``: remembered by the last write)."""
        from .stats import default_max_df

        return default_max_df(self)

    # ----------------------------------------------------------------- transactions, knobs
    @contextmanager
    def transaction(self):
        """BEGIN ... COMMIT; on any error or interrupt ROLLBACK and re-raise.

        DuckDB reports Ctrl-C during a statement as ``RuntimeError('Query interrupted')`` (and
        may already have ended the transaction); that is re-raised as ``KeyboardInterrupt``.
        """
        con = self._con
        con.begin()
        try:
            yield con
            con.commit()
        except BaseException as exc:
            try:
                con.rollback()
            except (duckdb.Error, RuntimeError):
                pass  # the transaction had already ended
            if is_interrupt(exc) and not isinstance(exc, KeyboardInterrupt):
                raise KeyboardInterrupt from None
            raise

    @contextmanager
    def setting_for_block(self, name: str, value: str, *, reset: bool = False):
        """DuckDB's configuration ``name`` set to ``value`` for a block, restored however it ends
        (with ``reset``, to DuckDB's default: a memory limit read back is rounded; the memory
        limit then to the one an index is opened with, ``limits.apply_memory_limit``)."""
        con = self._con
        before = con.execute("SELECT current_setting(?)", [name]).fetchall()[0][0]
        con.execute(f"SET {name} = ?", [str(value)])
        try:
            yield
        finally:
            try:
                if reset:
                    con.execute(f"RESET {name}")
                    if name == "memory_limit":
                        apply_memory_limit(con)
                else:
                    con.execute(f"SET {name} = ?", [str(before)])
            except (duckdb.Error, RuntimeError, WinnowError):
                pass  # never hide the error or interrupt that ended the block

    @contextmanager
    def threads(self, n: int):
        """DuckDB works with ``n`` threads in the block (``add``'s workers take the other cores)."""
        with self.setting_for_block("threads", str(int(n))):
            yield


def _table_names(con) -> set[str]:
    return {r[0] for r in con.execute(sqlfiles.load("table_names")).fetchall()}


def _paths(paths: list[str]) -> dict:
    import numpy as np

    return {"path": np.array(paths, dtype=object)}
