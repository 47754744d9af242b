"""Machine-readable output: JSON and CSV on standard output, for every command, in one way.

Field names and values are never shortened or styled. Rows stream out as they come (``rows`` may
be any iterable, a database cursor's batches included): a JSON array or CSV of a million pairs
is never built in memory as one string. ``copy_file`` copies a file DuckDB wrote (CSV) to
standard output.
"""
from __future__ import annotations

import csv
import json
import os
import sys
from typing import Any, Iterable

__all__ = ["write_json", "write_json_rows", "write_csv_rows", "copy_file"]


def write_json(value: Any) -> None:
    """One JSON value (a report, a list of groups) on standard output, indented."""
    _out(json.dumps(value, indent=2, default=str))


def write_json_rows(rows: Iterable[dict], columns: list[str]) -> None:
    """A JSON array of objects with ``columns``, written row by row (as ``json.dumps(..., indent=2)``
    writes it: an empty list is ``[]``)."""
    out = sys.stdout
    first = True
    for r in rows:
        obj = json.dumps({c: r.get(c) for c in columns}, indent=2, default=str)
        out.write(("[\n" if first else ",\n") + "  " + obj.replace("\n", "\n  "))
        first = False
    out.write("[]\n" if first else "\n]\n")
    out.flush()


def write_csv_rows(rows: Iterable[dict], columns: list[str]) -> None:
    """CSV with a header row, fields quoted only where needed (safe for simple consumers), NULL
    as an empty field, written row by row."""
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow(["" if r.get(c) is None else r.get(c) for c in columns])
    sys.stdout.flush()


def copy_file(path: str | os.PathLike) -> None:
    """Copy a finished output file (e.g. CSV written by DuckDB) to stdout."""
    import shutil

    sys.stdout.flush()
    with open(path, encoding="utf-8", newline="") as fh:
        shutil.copyfileobj(fh, sys.stdout, 1 << 20)
    sys.stdout.flush()


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
