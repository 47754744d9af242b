"""The DuckDB index file: create, open, check settings, bulk-load batches, delete documents.

One index is one DuckDB file. Its settings (k, w, normalizer, hash and schema versions) are fixed
when it is created; every later use is checked against them. Batches of documents and their
fingerprints are bulk-loaded (numpy columns or Arrow) in one transaction each, so an interrupted ``add`` keeps
every batch that committed and loses nothing else. All SQL comes from ``sql/`` with bound
parameters.

Reliability (docs/guarantees.md): a new index is created atomically (built under a temporary
name, then linked into place); a file that does not start like a DuckDB database is refused
before DuckDB sees it, DuckDB may not fetch extensions, and its lock errors become "in use by
another process" (``dbfile.py``; DuckDB never waits on the lock); older schemas are upgraded by ``MIGRATIONS``
in one transaction, newer ones refused; read-only opens use this version's views (as temporary
views); Ctrl-C during a write rolls it back and surfaces as ``KeyboardInterrupt`` (holding
Ctrl-C around a commit is ``interrupts.py``'s job).
"""
from __future__ import annotations

import datetime as _dt
import os
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable

import duckdb

from . import sqlfiles
from .dbfile import (creating_prefix, describe_duckdb_error, no_network_extensions, refuse_non_duckdb,
                     remove_stale_temporaries, table_names)
from .errors import WinnowError
from .interrupts import interrupts_allowed, is_interrupt

__all__ = ["Store", "SCHEMA_VERSION", "DEFAULT_DB", "MEMORY", "MIGRATIONS"]

SCHEMA_VERSION = 1
DEFAULT_DB = "winnowdb.duckdb"
#: the path of an index kept in memory (never written to disk)
MEMORY = ":memory:"
#: settings that define how fingerprints are computed; a mismatch is an error
FIXED_SETTINGS = ("k", "w", "code_k", "code_w", "normalizer", "text_normalizer", "hash_version", "selection",
                  "mod_m")


#: Schema upgrades. ``MIGRATIONS[v]`` turns a schema-``v`` index into schema ``v + 1`` given an open
#: connection inside a transaction; ``Store.open`` (writable) runs every step from the index's
#: version up to ``SCHEMA_VERSION`` and records the new version in the same transaction, so an
#: upgrade is all-or-nothing. Schema 1 is the first release, so there is nothing to upgrade yet:
#: when the schema changes, bump ``SCHEMA_VERSION`` and add the step for the old version here.
MIGRATIONS: dict[int, Callable[[duckdb.DuckDBPyConnection], None]] = {}


class Store:
    """An open index file. Use ``Store.open``; close with ``close()`` or a ``with`` block."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: str, read_only: bool):
        self.con = con
        self.path = path
        self.read_only = read_only
        self.settings = self._read_settings()
        self.upgraded_from: int | None = None  # set when opening upgraded an older schema

    # ----------------------------------------------------------------- opening
    @classmethod
    def open(cls, path: str | os.PathLike, *, read_only: bool = False, create: bool = False,
             settings: dict[str, str] | None = None) -> "Store":
        """Open (or with ``create``, create) the index at ``path``.

        ``settings`` are the values a new index gets; for an existing one, any of the
        ``FIXED_SETTINGS`` given must match what the index was created with.
        """
        path = str(path)
        if path == MEMORY:  # an index that lives in memory only, for the Python API and tests
            if read_only:
                raise WinnowError("an in-memory index cannot be opened read-only")
            con = duckdb.connect(MEMORY)
            no_network_extensions(con)
            cls._create(con, settings or {})
            store = cls(con, path, False)
            store._create_views()
            return store
        exists = Path(path).exists()
        if not exists and not create:
            raise WinnowError(f"no index at {path} (create one with `winnowdb add PATH`)")
        if exists and Path(path).is_dir():
            raise WinnowError(f"{path} is a directory, not an index file")
        if not exists and read_only:
            raise WinnowError(f"no index at {path}")
        if not exists:
            cls._create_file(path, settings or {})
        else:
            refuse_non_duckdb(path)
            if not read_only:  # tidy up after a creation that was killed
                remove_stale_temporaries(*os.path.split(os.path.abspath(path)))
        try:
            con = duckdb.connect(path, read_only=read_only)
        except duckdb.Error as exc:
            raise WinnowError(describe_duckdb_error(path, exc, read_only)) from None
        try:
            no_network_extensions(con)
            tables = table_names(con)
            if "settings" not in tables:
                if tables or not create or read_only:
                    raise WinnowError(f"{path} is a DuckDB file but not a winnowdb index")
                cls._create(con, settings or {})  # an empty DuckDB file: make it an index
            store = cls(con, path, read_only)
            store._check_version()
            if settings:
                store._check_settings(settings)
            store._create_views(temporary=read_only)
            return store
        except WinnowError:
            con.close()
            raise
        except duckdb.Error as exc:
            con.close()
            raise WinnowError(describe_duckdb_error(path, exc, read_only)) from None

    @classmethod
    def _create_file(cls, path: str, settings: dict[str, str]) -> None:
        """Create a new index at ``path`` atomically: built complete under a temporary name, then
        hard-linked into place (which fails if ``path`` appeared meanwhile), so a crash during
        creation never leaves a half-made file at ``path`` and two processes creating the same
        index never overwrite each other."""
        folder, base = os.path.split(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise WinnowError(f"cannot create index {path}: folder {folder} does not exist")
        remove_stale_temporaries(folder, base)
        tmp = os.path.join(folder, f"{creating_prefix(base)}{os.getpid()}-{uuid.uuid4().hex[:8]}")
        try:
            try:
                con = duckdb.connect(tmp)
            except duckdb.Error as exc:
                raise WinnowError(describe_duckdb_error(path, exc).replace("open index", "create index")) from None
            try:
                cls._create(con, settings)
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

    @staticmethod
    def _create(con: duckdb.DuckDBPyConnection, settings: dict[str, str]) -> None:
        from . import __version__

        con.begin()
        con.execute(sqlfiles.load("create_tables"))
        values = dict(settings)
        values.update(schema_version=str(SCHEMA_VERSION), created_by=f"winnowdb {__version__}",
                      created_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
        con.executemany("INSERT INTO settings VALUES (?, ?)", [(k, str(v)) for k, v in values.items()])
        con.commit()

    def _create_views(self, temporary: bool = False) -> None:
        """(Re)create the convenience views with this version's definitions.

        Writable opens store them in the index, and a digest of this version's view SQL and of
        the stored definitions as DuckDB keeps them (setting ``views_digest``). A read-only open
        whose digest differs (another winnowdb version wrote its views since, with or without a
        digest, or the index predates it) creates this version's views as temporary views of the
        connection, which take
        precedence over the stored ones -- so an index last written by another winnowdb version
        is always read with this version's views, and one written by this version lists each
        view once in ``SHOW TABLES``.
        """
        import re

        sql = sqlfiles.index_views()
        names = sorted(set(re.findall(r"CREATE OR REPLACE VIEW (\w+)", sql)))
        if temporary:
            if self.settings.get(VIEWS_DIGEST) != self._views_digest(names):
                self.con.execute(sqlfiles.temporary_views(sql))
            return
        self.con.execute(sql)
        digest = self._views_digest(names)
        if self.settings.get(VIEWS_DIGEST) != digest:
            self.set_setting(VIEWS_DIGEST, digest)

    def _views_digest(self, names: list[str]) -> str:
        """A digest of this version's view SQL and of the stored (not temporary) definitions of
        the views ``names``: it matches only views this version stored and nobody changed since."""
        import hashlib

        rows = self.con.execute(
            "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal AND NOT temporary "
            "AND database_name = current_database() AND schema_name = 'main' "
            "AND view_name IN (SELECT UNNEST(?::VARCHAR[])) ORDER BY view_name", [names]).fetchall()
        return hashlib.blake2b(repr((sqlfiles.index_views(), rows)).encode(), digest_size=16).hexdigest()

    def _read_settings(self) -> dict[str, str]:
        return dict(self.con.execute("SELECT key, value FROM settings").fetchall())

    def _check_version(self) -> None:
        try:
            version = int(self.settings.get("schema_version", "0"))
        except ValueError:
            raise WinnowError(f"{self.path}: unreadable schema version "
                              f"{self.settings.get('schema_version')!r}") from None
        if version > SCHEMA_VERSION:
            raise WinnowError(f"{self.path} was made by a newer winnowdb (schema {version}; this "
                              f"version reads up to {SCHEMA_VERSION}): upgrade winnowdb to use it")
        if version == SCHEMA_VERSION:
            return
        missing = [v for v in range(version, SCHEMA_VERSION) if v not in MIGRATIONS]
        if missing:
            raise WinnowError(f"{self.path} has schema version {version}, which this winnowdb cannot "
                              f"upgrade (it reads schema {SCHEMA_VERSION}); re-create the index by "
                              f"running `winnowdb add` on the files again with a new --db")
        if self.read_only:
            raise WinnowError(f"{self.path} has schema version {version}; this winnowdb uses schema "
                              f"{SCHEMA_VERSION}: run `winnowdb upgrade --db {self.path}` (or any "
                              f"command that writes, such as add) to upgrade it in place")
        self.upgrade(version)

    def upgrade(self, version: int) -> None:
        """Run the migrations from schema ``version`` to ``SCHEMA_VERSION`` in one transaction."""
        with self._transaction() as con:
            for v in range(version, SCHEMA_VERSION):
                MIGRATIONS[v](con)
            con.execute("DELETE FROM settings WHERE key = 'schema_version'")
            con.execute("INSERT INTO settings VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
        self.settings = self._read_settings()
        self.upgraded_from = version

    def _check_settings(self, wanted: dict[str, str]) -> None:
        for key in FIXED_SETTINGS:
            if key in wanted and wanted[key] is not None and key in self.settings \
                    and str(wanted[key]) != self.settings[key]:
                raise WinnowError(
                    f"index {self.path} was created with {key}={self.settings[key]}, not "
                    f"{key}={wanted[key]}; settings are fixed per index (use another --db)")

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ----------------------------------------------------------------- reading
    def run(self, name: str, *, limit: int | None = None, **params: Any) -> duckdb.DuckDBPyConnection:
        """Execute ``sql/<name>.sql`` with bound parameters; returns the cursor.

        ``limit`` (a positive int) keeps the first rows of a query that ends with ORDER BY.
        """
        sql = sqlfiles.load(name)
        bound = sqlfiles.bind(sql, params)
        if limit is not None and int(limit) > 0:
            sql = sqlfiles.with_limit(sql, int(limit))
        return self.con.execute(sql, bound)

    def write_csv(self, name: str, path: str | os.PathLike, columns: list[str], *, limit: int | None = None,
                  **params: Any) -> None:
        """Write ``columns`` of ``sql/<name>.sql``'s result, in its order, to a CSV file at ``path``.

        A header row, fields quoted only where needed, NULL as an empty field. DuckDB writes the
        file itself: no Python row is built, which matters for hundreds of thousands of pairs.
        """
        sql = sqlfiles.load(name)
        bound = sqlfiles.bind(sql, params)
        if limit is not None and int(limit) > 0:
            sql = sqlfiles.with_limit(sql, int(limit))
        picked = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
        self.con.sql(f"SELECT {picked} FROM ({sql.strip().rstrip(';')}) AS result",
                     params=bound).write_csv(str(path), header=True)

    def setting_int(self, key: str) -> int:
        return int(self.settings[key])

    def documents_by_path(self, paths: list[str]) -> dict[str, tuple[int, str, str]]:
        """path -> (doc, content_hash, kind) for the given paths that are indexed."""
        if not paths:
            return {}
        import numpy as np

        with sqlfiles.registered(self.con, _wanted_paths={"path": np.array(paths, dtype=object)}):
            rows = self.con.execute(
                "SELECT d.path, d.doc, d.content_hash, d.kind FROM documents d "
                "JOIN _wanted_paths w ON w.path = d.path").fetchall()
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def next_doc_id(self) -> int:
        """The id of the next new document: above every id this index has ever given, so the id
        of a removed (or replaced) document is never reused and nothing that still names it (a
        clusters snapshot, a user's saved query results) can point at another document."""
        return int(self.con.execute(
            "SELECT GREATEST(COALESCE((SELECT MAX(doc) FROM documents), 0), COALESCE((SELECT MAX("
            f"TRY_CAST(value AS BIGINT)) FROM settings WHERE key = '{_REMOVED_KEY}'), 0)) + 1").fetchall()[0][0])

    def default_max_df(self) -> int:
        """The default --max-df of this index (``winnowdb.max_df``: remembered or computed)."""
        from .max_df import default_max_df

        return default_max_df(self)

    # ----------------------------------------------------------------- writing
    @contextmanager
    def _transaction(self):
        """BEGIN ... COMMIT; on any error or interrupt ROLLBACK and re-raise.

        DuckDB reports Ctrl-C during a statement as ``RuntimeError('Query interrupted')`` (and
        may already have ended the transaction); that is re-raised as ``KeyboardInterrupt``.
        """
        con = self.con
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

    #: how much write-ahead log a bulk write lets build up before DuckDB checkpoints it into the
    #: file (DuckDB's default is 16 MB: an ``add`` of 25 MB of text checkpointed three times on
    #: the way, re-compressing and rewriting blocks each time; see ``bulk_writes``)
    BULK_CHECKPOINT_MB = 256

    @contextmanager
    def bulk_writes(self):
        """Within the block, commits checkpoint less often (every ``BULK_CHECKPOINT_MB`` of log).

        Every commit is still durable: DuckDB writes it to the write-ahead log before COMMIT
        returns, and replays the log when the file is next opened, so a crash or kill loses
        nothing committed. The data is moved into the file once, at the next checkpoint (at the
        latest when the index is closed), instead of at every 16 MB. The previous threshold is
        restored when the block is left, whatever ends it.
        """
        con = self.con
        if self.read_only or self.path == MEMORY:
            yield
            return
        before = con.execute("SELECT current_setting('checkpoint_threshold')").fetchall()[0][0]
        con.execute(f"SET checkpoint_threshold = '{int(self.BULK_CHECKPOINT_MB)}MB'")
        try:
            yield
        finally:
            try:
                con.execute("SET checkpoint_threshold = ?", [str(before)])
            except (duckdb.Error, RuntimeError):
                pass  # never hide the error or interrupt that ended the block

    def _with_tables(self, con, tables: dict, statements: list[str]) -> None:
        """Run ``statements`` reading ``tables`` (name -> numpy column dict or Arrow data)."""
        with sqlfiles.registered(con, **tables):
            for sql in statements:
                con.execute(sql)

    def write_batch(self, documents, texts, fingerprints, replaced: list[int], *, same_ids: bool = False) -> None:
        """Replace ``replaced`` doc ids and insert a batch in one transaction. ``same_ids``: the
        batch rewrites those very documents under their own ids (``_delete_docs(rewritten=True)``).

        The tables are Arrow tables or dicts of equal-length numpy arrays (column name -> array,
        in the table's column order); DuckDB scans either in bulk. (Building Arrow arrays makes
        pyarrow import pandas, which costs a quarter of a second of every ``add``.)"""
        with self._transaction() as con:
            if replaced:
                self._delete_docs(_doc_ids(replaced), rewritten=same_ids)
            self._with_tables(con, {"_new_documents": documents, "_new_texts": texts,
                                    "_new_fingerprints": fingerprints},
                              ["INSERT INTO documents SELECT * FROM _new_documents",
                               "INSERT INTO document_texts SELECT * FROM _new_texts",
                               "INSERT INTO fingerprints SELECT * FROM _new_fingerprints"])

    def write_streamed(self, fingerprint_batches, finish: Callable[[], tuple], replaced: list[int], *,
                       memory_limit_mb: int | None = None) -> None:
        """Store one huge document in one transaction without holding all its fingerprints.

        ``fingerprint_batches`` is an Arrow ``RecordBatchReader`` of fingerprint rows, inserted by
        one streaming INSERT (DuckDB then writes row groups out as they fill instead of keeping
        the whole transaction in memory); then ``finish()`` returns the (documents, texts)
        tables, inserted last. Either everything commits or nothing does. Ctrl-C stays possible
        while the fingerprints stream in, even inside ``deferred_interrupt()``.

        ``memory_limit_mb`` caps DuckDB's memory for this transaction (by default DuckDB keeps up
        to 80% of RAM of written data cached); too small a cap raises DuckDB's out-of-memory error
        and changes nothing.
        """
        con = self.con
        if memory_limit_mb:
            con.execute(f"SET memory_limit = '{int(memory_limit_mb)}MB'")
        try:
            with self._transaction() as con:
                if replaced:
                    self._delete_docs(_doc_ids(replaced))
                with interrupts_allowed():
                    self._with_tables(con, {"_new_fingerprints": fingerprint_batches},
                                      ["INSERT INTO fingerprints SELECT * FROM _new_fingerprints"])
                documents, texts = finish()
                self._with_tables(con, {"_new_documents": documents, "_new_texts": texts},
                                  ["INSERT INTO documents SELECT * FROM _new_documents",
                                   "INSERT INTO document_texts SELECT * FROM _new_texts"])
        finally:
            if memory_limit_mb:
                try:
                    con.execute("RESET memory_limit")
                except (duckdb.Error, RuntimeError):
                    pass

    def _delete_docs(self, docs_table, *, rewritten: bool = False) -> None:
        """Delete documents inside the caller's transaction: their fingerprints, texts, rows of
        the clusters snapshot, and the documents; the highest id removed is remembered
        (``next_doc_id`` never gives it again). ``rewritten``: the same documents are written
        again under the same ids (``upgrade``), so their clusters rows stay and no id is retired."""
        statements = [
            "DELETE FROM fingerprints WHERE doc IN (SELECT doc FROM _gone)",
            "DELETE FROM document_texts WHERE doc IN (SELECT doc FROM _gone)",
            "DELETE FROM documents WHERE doc IN (SELECT doc FROM _gone)"]
        if rewritten:
            self._with_tables(self.con, {"_gone": docs_table}, statements)
            return
        if "clusters" in table_names(self.con):
            statements.append("DELETE FROM clusters WHERE doc IN (SELECT doc FROM _gone)")
        top = int(docs_table["doc"].max()) if len(docs_table["doc"]) else 0
        old = self.con.execute(f"SELECT MAX(TRY_CAST(value AS BIGINT)) FROM settings WHERE key = '{_REMOVED_KEY}'"
                               ).fetchall()[0][0]
        if old is None or top > int(old):
            statements += [f"DELETE FROM settings WHERE key = '{_REMOVED_KEY}'",
                           f"INSERT INTO settings VALUES ('{_REMOVED_KEY}', '{top}')"]
        self._with_tables(self.con, {"_gone": docs_table}, statements)

    def delete_setting(self, key: str) -> None:
        """Remove one setting in one transaction."""
        with self._transaction() as con:
            con.execute("DELETE FROM settings WHERE key = ?", [key])
        self.settings = self._read_settings()

    def set_setting(self, key: str, value: str) -> None:
        """Store one setting (replacing its value) in one transaction."""
        with self._transaction() as con:
            con.execute("DELETE FROM settings WHERE key = ?", [key])
            con.execute("INSERT INTO settings VALUES (?, ?)", [key, str(value)])
        self.settings = self._read_settings()

    def remove_docs(self, docs: list[int]) -> None:
        """Delete documents (their texts, fingerprints and clusters rows) in one transaction."""
        if not docs:
            return
        with self._transaction():
            self._delete_docs(_doc_ids(docs))


#: setting holding a digest of the SQL of the views stored in the index (``Store._create_views``)
VIEWS_DIGEST = "views_digest"

#: setting that remembers the highest document id ever removed (ids are never reused)
_REMOVED_KEY = "max_removed_doc"


def _doc_ids(docs: list[int]) -> dict:
    """A one-column table of document ids, for DuckDB to scan."""
    import numpy as np

    return {"doc": np.asarray(docs, dtype=np.int32)}
