"""Query results written to a file by DuckDB itself (``COPY ... TO``): CSV or a JSON array.

A command that can print hundreds of thousands of rows (every pair of a class, every
near-duplicate pair) has DuckDB write them: no Python object is made per row, and the rows are
never held in memory together, neither in Python nor in DuckDB beyond what its ORDER BY needs.
``write_query`` runs one ``sql/`` query with its bound parameters inside ``COPY (SELECT columns
FROM (query)) TO $path``; the path is a bound parameter too, so any file name works, a named
pipe included (``report.writers.stream_to_stdout`` streams the rows to standard output through
one). The query's ORDER BY gives the order of the rows in the file.

The two formats keep what the Python writers (``report.writers``) promise: a header row, fields
quoted only where needed and NULL as an empty field (CSV); a JSON array of objects with the
columns as keys, in order, numbers as numbers, NULL as ``null`` and every float with the digits
that give it back exactly, as Python's ``json`` writes it (JSON). DuckDB writes one object per
line, indented with a tab, and an empty result as ``[``, a blank line and ``]``.
"""
from __future__ import annotations

import os
from typing import Any

from . import sqlfiles

__all__ = ["COPY_OPTIONS", "OUTPUT_PARAMETER", "write_query"]

#: the COPY options of each format. USE_TMP_FILE false: DuckDB writes to the path itself (by
#: default it may write a file next to it and rename that over the path, which would replace a
#: named pipe instead of writing into it)
COPY_OPTIONS = {
    "csv": "FORMAT csv, HEADER true, USE_TMP_FILE false",
    "json": "FORMAT json, ARRAY true, USE_TMP_FILE false",
}
#: the named parameter that carries the output path (DuckDB cannot mix ``?`` with the queries'
#: ``$name`` parameters, so the path is one of them, under a name no query file uses)
OUTPUT_PARAMETER = "winnowdb_output_path"


def write_query(con, name: str, path: str | os.PathLike, columns: list[str], fmt: str, *,
                limit: int | None = None, params: dict[str, Any]) -> int:
    """Write ``columns`` of ``sql/<name>.sql``'s result, in its order, to ``path`` as ``fmt``
    (``csv`` or ``json``); the number of rows written.

    ``limit`` (a positive int) keeps the first rows of a query that ends with ORDER BY; ``params``
    are the query's parameters (those it does not use are left out, as ``Store.run`` does).
    """
    if fmt not in COPY_OPTIONS:
        raise ValueError(f"DuckDB writes csv or json, not {fmt!r}")
    sql = sqlfiles.load(name)
    bound = sqlfiles.bind(sql, params)
    if OUTPUT_PARAMETER in sqlfiles.parameters(sql):
        raise ValueError(f"sql/{name}.sql uses ${OUTPUT_PARAMETER}, the output path's parameter")
    if limit is not None and int(limit) > 0:
        sql = sqlfiles.with_limit(sql, int(limit))
    picked = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
    query = sql.strip().rstrip(";")
    copy = (f"COPY (SELECT {picked} FROM (\n{query}\n) AS result) "  # \n: a final -- comment ends first
            f"TO ${OUTPUT_PARAMETER} ({COPY_OPTIONS[fmt]})")
    rows = con.execute(copy, {**bound, OUTPUT_PARAMETER: str(path)}).fetchall()
    return int(rows[0][0]) if rows else 0
