"""The DuckDB index file: create, open, check settings, bulk-load batches, delete documents.

One index is one DuckDB file. Its settings (k, w, normalizer, hash and schema versions) are fixed
when it is created; every later use is checked against them. Batches of documents and their
fingerprints are loaded through Arrow in one transaction each, so an interrupted ``add`` keeps
every batch that committed and loses nothing else. All SQL comes from ``sql/`` with bound
parameters.
"""
from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import Any

import duckdb

from . import sqlfiles
from .errors import WinnowError

__all__ = ["Store", "SCHEMA_VERSION", "DEFAULT_DB"]

SCHEMA_VERSION = 1
DEFAULT_DB = "winnowdb.duckdb"
#: settings that define how fingerprints are computed; a mismatch is an error
FIXED_SETTINGS = ("k", "w", "code_k", "code_w", "normalizer", "hash_version", "selection", "mod_m")


def _describe_duckdb_error(path: str, exc: Exception) -> str:
    msg = str(exc)
    low = msg.lower()
    if "lock" in low:
        return f"index {path} is in use by another process; try again when it has finished"
    if "not a valid duckdb" in low or "unable to open database" in low and "valid" in low or "magic" in low:
        return f"{path} is not a winnowdb index (not a DuckDB database file)"
    if "permission denied" in low:
        return f"cannot open index {path}: permission denied"
    if "read-only" in low or "read only" in low:
        return f"cannot write to index {path}: it is read-only"
    first = msg.strip().splitlines()[0] if msg.strip() else type(exc).__name__
    return f"cannot open index {path}: {first}"


class Store:
    """An open index file. Use ``Store.open``; close with ``close()`` or a ``with`` block."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: str, read_only: bool):
        self.con = con
        self.path = path
        self.read_only = read_only
        self.settings = self._read_settings()

    # ----------------------------------------------------------------- opening
    @classmethod
    def open(cls, path: str | os.PathLike, *, read_only: bool = False, create: bool = False,
             settings: dict[str, str] | None = None) -> "Store":
        """Open (or with ``create``, create) the index at ``path``.

        ``settings`` are the values a new index gets; for an existing one, any of the
        ``FIXED_SETTINGS`` given must match what the index was created with.
        """
        path = str(path)
        exists = Path(path).exists()
        if not exists and not create:
            raise WinnowError(f"no index at {path} (create one with `winnowdb add PATH`)")
        if exists and Path(path).is_dir():
            raise WinnowError(f"{path} is a directory, not an index file")
        if not exists and read_only:
            raise WinnowError(f"no index at {path}")
        try:
            con = duckdb.connect(path, read_only=read_only)
        except duckdb.Error as exc:
            raise WinnowError(_describe_duckdb_error(path, exc)) from None
        try:
            tables = {r[0] for r in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
            if "settings" not in tables:
                if tables or exists and os.path.getsize(path) > 0 and not create:
                    raise WinnowError(f"{path} is a DuckDB file but not a winnowdb index")
                if tables:
                    raise WinnowError(f"{path} is a DuckDB file but not a winnowdb index")
                if read_only:
                    raise WinnowError(f"no index at {path}")
                cls._create(con, settings or {})
            store = cls(con, path, read_only)
            store._check_version()
            if settings:
                store._check_settings(settings)
            if not read_only:
                store._create_views()
            return store
        except WinnowError:
            con.close()
            raise
        except duckdb.Error as exc:
            con.close()
            raise WinnowError(_describe_duckdb_error(path, exc)) from None

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

    def _create_views(self) -> None:
        self.con.execute(sqlfiles.load("create_views"))
        body = sqlfiles.as_view("pairs", {"max_df": "SELECT max_df FROM default_max_df",
                                          "min_shared": "1", "new_label": "NULL"})
        self.con.execute(f"CREATE OR REPLACE VIEW pairs AS {body}")

    def _read_settings(self) -> dict[str, str]:
        return dict(self.con.execute("SELECT key, value FROM settings").fetchall())

    def _check_version(self) -> None:
        try:
            version = int(self.settings.get("schema_version", "0"))
        except ValueError:
            raise WinnowError(f"{self.path}: unreadable schema version") from None
        if version > SCHEMA_VERSION:
            raise WinnowError(f"{self.path} was made by a newer winnowdb (schema {version}; this "
                              f"version reads up to {SCHEMA_VERSION}): upgrade winnowdb to use it")
        if version < 1:
            raise WinnowError(f"{self.path}: unknown schema version {version}")

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
    def run(self, name: str, **params: Any) -> duckdb.DuckDBPyConnection:
        """Execute ``sql/<name>.sql`` with bound parameters; returns the cursor."""
        sql = sqlfiles.load(name)
        return self.con.execute(sql, sqlfiles.bind(sql, params))

    def setting_int(self, key: str) -> int:
        return int(self.settings[key])

    def documents_by_path(self, paths: list[str]) -> dict[str, tuple[int, str, str]]:
        """path -> (doc, content_hash, kind) for the given paths that are indexed."""
        if not paths:
            return {}
        import pyarrow as pa

        self.con.register("_wanted_paths", pa.table({"path": paths}))
        try:
            rows = self.con.execute(
                "SELECT d.path, d.doc, d.content_hash, d.kind FROM documents d "
                "JOIN _wanted_paths w ON w.path = d.path").fetchall()
        finally:
            self.con.unregister("_wanted_paths")
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def next_doc_id(self) -> int:
        return int(self.con.execute("SELECT COALESCE(MAX(doc), 0) + 1 FROM documents").fetchall()[0][0])

    def default_max_df(self) -> int:
        return int(self.con.execute("SELECT max_df FROM default_max_df").fetchall()[0][0])

    # ----------------------------------------------------------------- writing
    def write_batch(self, documents, texts, fingerprints, replaced: list[int]) -> None:
        """Replace ``replaced`` doc ids and insert a batch (Arrow tables) in one transaction."""
        import pyarrow as pa

        con = self.con
        con.begin()
        try:
            if replaced:
                self._delete_docs(pa.table({"doc": pa.array(replaced, pa.int32())}))
            con.register("_new_documents", documents)
            con.register("_new_texts", texts)
            con.register("_new_fingerprints", fingerprints)
            con.execute("INSERT INTO documents SELECT * FROM _new_documents")
            con.execute("INSERT INTO document_texts SELECT * FROM _new_texts")
            con.execute("INSERT INTO fingerprints SELECT * FROM _new_fingerprints")
            con.commit()
        except BaseException:
            con.rollback()
            raise
        finally:
            for name in ("_new_documents", "_new_texts", "_new_fingerprints"):
                try:
                    con.unregister(name)
                except duckdb.Error:
                    pass

    def _delete_docs(self, docs_table) -> None:
        con = self.con
        con.register("_gone", docs_table)
        try:
            con.execute("DELETE FROM fingerprints WHERE doc IN (SELECT doc FROM _gone)")
            con.execute("DELETE FROM document_texts WHERE doc IN (SELECT doc FROM _gone)")
            con.execute("DELETE FROM documents WHERE doc IN (SELECT doc FROM _gone)")
        finally:
            con.unregister("_gone")

    def remove_docs(self, docs: list[int]) -> None:
        """Delete documents (and their texts and fingerprints) in one transaction."""
        import pyarrow as pa

        if not docs:
            return
        self.con.begin()
        try:
            self._delete_docs(pa.table({"doc": pa.array(docs, pa.int32())}))
            self.con.commit()
        except BaseException:
            self.con.rollback()
            raise
