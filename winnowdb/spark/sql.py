"""The ``sql/`` files on Spark SQL, over temporary views of an exported index.

``register_export`` reads an export directory (``winnowdb export --parquet`` or ``winnowdb spark
fingerprint``) into temporary views named like the index's tables, then runs
``create_views.sql`` through ``sqlfiles.for_spark`` so document_fingerprints, fingerprint_df,
default_max_df and pairs exist exactly as in a DuckDB index; the kept statistics an export may
lack (shared_hashes, boilerplate_hashes, meta, documents_pending: ``export.DERIVED``) are views
counting them from the fingerprints. ``run`` executes one query
file with named parameters bound (Spark's ``:name`` markers; never spliced into the text).
"""
from __future__ import annotations

import os
from typing import Any

from ..errors import WinnowError
from ..store import sqlfiles
from ..store.export import DERIVED, FINGERPRINT_COLUMNS, PARTITIONED, check_current, read_manifest

__all__ = ["statements", "register_export", "create_views", "cache_views", "run", "rows", "default_max_df",
           "export_settings", "CACHED_VIEWS", "is_local", "local_path", "export_tables"]


def statements(sql: str) -> list[str]:
    """The statements of a SQL file in Spark's form (``sqlfiles.for_spark``), split at the
    semicolons in code (not in string literals, quoted identifiers or comments)."""
    return sqlfiles.split_statements(sqlfiles.for_spark(sql))


def _uri(directory: str | os.PathLike, *parts: str) -> str:
    base = str(directory).rstrip("/")
    return "/".join([base, *parts])


def is_local(directory: str | os.PathLike) -> bool:
    """Whether ``directory`` is on the local file system (a path, or a ``file://`` URI)."""
    text = str(directory)
    return "://" not in text or text.startswith("file://")


def local_path(directory: str | os.PathLike) -> str:
    """The local path of a local ``directory`` (a ``file://`` URI without its scheme)."""
    text = str(directory)
    return text[len("file://"):] if text.startswith("file://") else text


def export_tables(spark, directory: str | os.PathLike) -> list[str]:
    """Names of the tables in an export directory (local or any filesystem Spark reads)."""
    if is_local(directory):
        from ..store.export import exported_tables

        check_current(read_manifest(local_path(directory)), directory)
        return exported_tables(local_path(directory))
    jvm = spark.sparkContext._jvm
    path = jvm.org.apache.hadoop.fs.Path(str(directory))
    fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    names = []
    for status in fs.listStatus(path):
        name = status.getPath().getName()
        if status.isDirectory() and not name.startswith(("_", ".")):
            names.append(name)
    return sorted(names)


def register_export(spark, directory: str | os.PathLike, *, views: bool = True) -> list[str]:
    """Temporary views over an export directory; with ``views``, create_views.sql on top.

    Returns the table names registered.
    """
    names = export_tables(spark, directory)
    for view in CACHED_VIEWS:
        spark.sql(f"UNCACHE TABLE IF EXISTS {view}")
    for required in ("settings", "documents", "fingerprints"):
        if required not in names:
            raise FileNotFoundError(f"{directory}: the export has no {required} table")
    for name in names:
        df = spark.read.parquet(_uri(directory, name))
        if name in PARTITIONED:
            df = df.select(*FINGERPRINT_COLUMNS)
        if name == "documents" and "sub" not in df.columns:  # an export of winnowdb 0.1 elsewhere
            raise WinnowError(f"{directory}: an export of an older format (its documents have no sub "
                              f"column): import it (`winnowdb import`) and export it again")
        df.createOrReplaceTempView(name)
    for name, counted in DERIVED.items():  # tables a Spark-fingerprinted export does not hold
        if name not in names:
            spark.sql(statements(f"CREATE OR REPLACE VIEW {name} AS {sqlfiles.load(counted)}")[0])
    if views:
        create_views(spark)
    return names


#: views every pair / query file reads more than once; Spark inlines views and CTEs (DuckDB
#: materializes shared CTEs), so jobs cache these lazily instead: same SQL, computed once
CACHED_VIEWS = ("document_fingerprints", "fingerprint_df", "shared_hashes", "boilerplate_hashes")


def cache_views(spark) -> None:
    """Cache the shared views (lazily, in memory and on disk) for the queries that follow."""
    for view in CACHED_VIEWS:
        spark.sql(f"CACHE LAZY TABLE {view}")


def create_views(spark) -> None:
    """Run ``sql/create_views.sql`` on Spark (as temporary views)."""
    for statement in statements(sqlfiles.load("create_views")):
        spark.sql(statement)


def run(spark, name: str, **params: Any):
    """``sql/<name>.sql`` on Spark with its parameters bound; a (lazy) DataFrame."""
    sql = sqlfiles.load(name)
    args = sqlfiles.bind(sql, params)
    return spark.sql(sqlfiles.for_spark(sql), args=args) if args else spark.sql(sqlfiles.for_spark(sql))


def rows(df) -> list[dict]:
    """A small DataFrame's rows as dicts (in its order), like ``Index`` methods return."""
    return [r.asDict() for r in df.collect()]


def default_max_df(spark) -> int:
    """The index's default cap on document frequency (the default_max_df view)."""
    return int(run(spark, "default_max_df_value").collect()[0][0])


def export_settings(spark) -> dict[str, str]:
    """The settings of the registered export (its settings view)."""
    return {r[0]: r[1] for r in run(spark, "settings_all").collect()}
