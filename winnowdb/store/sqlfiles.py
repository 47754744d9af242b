"""Load the SQL files that answer winnowdb's questions (``sql/*.sql``), one query per file.

Queries use named parameters written ``$name``; callers bind them (never string-splice a value
into SQL). ``as_view`` turns a query file into a view body by substituting SQL expressions for
its parameters (used for the convenience views in a DuckDB index); ``for_spark`` rewrites the
parameter markers into Spark SQL's ``:name`` form. Queries may also read relations the caller
registers for the moment (``registered``: numpy column dicts, e.g. a query's fingerprints).
"""
from __future__ import annotations

import contextlib
import re
from functools import lru_cache
from pathlib import Path

__all__ = ["sql_dir", "load", "as_view", "for_spark", "temporary_views", "parameters", "registered", "index_views",
           "duckdb_only", "DUCKDB_ONLY"]

#: the header line of a query file that runs on DuckDB only (the index's catalog or bookkeeping),
#: with the reason after it: such a file is exempt from the portability rules (docs/spark.md)
DUCKDB_ONLY = "-- DuckDB only:"

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def sql_dir() -> Path:
    """The folder of SQL files: inside the installed package (the wheel ships the source tree's
    ``sql/`` as ``winnowdb/sql``), or the source tree's ``sql/``."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "sql", package.parent / "sql"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("winnowdb's sql/ folder is missing from the installation")


@lru_cache(maxsize=None)
def load(name: str) -> str:
    """The text of ``sql/<name>.sql``."""
    return (sql_dir() / f"{name}.sql").read_text(encoding="utf-8")


def duckdb_only(name: str) -> bool:
    """Whether ``sql/<name>.sql`` says in its header that it runs on DuckDB only."""
    return any(line.startswith(DUCKDB_ONLY) for line in load(name).splitlines() if line.startswith("--"))


def parameters(sql: str) -> set[str]:
    """Names of the ``$name`` parameters a query uses."""
    return set(_PARAM.findall(_strip_comments(sql)))


def bind(sql: str, values: dict) -> dict:
    """The subset of ``values`` that the query uses (DuckDB rejects unused named parameters)."""
    used = parameters(sql)
    missing = used - values.keys()
    if missing:
        raise KeyError(f"missing SQL parameters: {sorted(missing)}")
    return {k: v for k, v in values.items() if k in used}


def with_limit(sql: str, limit: int) -> str:
    """The query with ``LIMIT n`` appended (it must end with its ORDER BY clause)."""
    return _strip_comments(sql).rstrip().rstrip(";") + f"\nLIMIT {int(limit)}"


def as_view(name: str, expressions: dict[str, str]) -> str:
    """Query ``name`` with each ``$param`` replaced by a SQL expression (for CREATE VIEW)."""
    body = _strip_comments(load(name))
    return _PARAM.sub(lambda m: f"({expressions[m.group(1)]})", body)


_CREATE_VIEW = re.compile(r"\bCREATE(\s+OR\s+REPLACE)?\s+VIEW\b", re.IGNORECASE)
_SEGMENTS = re.compile(r"('(?:[^']|'')*')|(--[^\n]*)|([^'-]+|-)", re.DOTALL)


_MATERIALIZED = re.compile(r"\bAS\s+MATERIALIZED\s*\(", re.IGNORECASE)


def for_spark(sql: str) -> str:
    """The same SQL for Spark SQL: ``:name`` parameter markers, and views made session-local.

    Three mechanical rewrites, outside string literals: ``$name`` becomes ``:name``;
    ``CREATE [OR REPLACE] VIEW`` becomes ``CREATE [OR REPLACE] TEMP VIEW`` (Spark reads an
    exported index through temporary views, and a permanent view may not refer to them); and a
    common table expression's ``AS MATERIALIZED (`` becomes ``AS (`` (a DuckDB planning hint:
    compute the CTE once, before the joins that use it; Spark has no such keyword).
    ``--`` comments are dropped, so nothing in a comment is rewritten. Everything else in
    ``sql/`` is written to run unchanged on both engines (docs/spark.md lists the rules).
    """
    out = []
    for literal, _comment, code in _SEGMENTS.findall(sql):
        if literal:
            out.append(literal)
        elif code:
            code = _MATERIALIZED.sub("AS (", temporary_views(code))
            out.append(_PARAM.sub(lambda m: ":" + m.group(1), code))
    return "".join(out)


def temporary_views(sql: str) -> str:
    """``CREATE [OR REPLACE] VIEW`` made ``CREATE [OR REPLACE] TEMP VIEW``: views that live in one
    connection or session (a read-only DuckDB open, a Spark session)."""
    return _CREATE_VIEW.sub(lambda m: "CREATE" + (" OR REPLACE" if m.group(1) else "") + " TEMP VIEW", sql)


def _strip_comments(sql: str) -> str:
    return "\n".join(line for line in sql.splitlines() if not line.lstrip().startswith("--"))


@contextlib.contextmanager
def registered(con, **tables):
    """Register tables with the DuckDB connection ``con`` under the given names for the duration
    of a ``with`` block (unregistered however it ends).

    Pass dicts of equal-length numpy arrays (column name -> array) rather than Arrow tables:
    DuckDB scans both in bulk, but an Arrow table makes DuckDB import pandas (about 0.3 s)."""
    done = []
    try:
        for name, table in tables.items():
            con.register(name, table)
            done.append(name)
        yield con
    finally:
        for name in done:
            try:
                con.unregister(name)
            except Exception:  # pragma: no cover - best effort cleanup (the connection may be closed)
                pass


def index_views() -> str:
    """The SQL that creates every convenience view of an index: ``create_views.sql`` and the
    ``pairs`` view (``pairs.sql`` with its defaults). The same views over an index file or over
    exported Parquet files (``export.duckdb_views``)."""
    body = as_view("pairs", {"max_df": "NULL", "min_shared": "1", "new_label": "NULL"})
    return load("create_views").rstrip().rstrip(";") + f";\nCREATE OR REPLACE VIEW pairs AS {body}"
