"""Maintenance commands: check (integrity), upgrade (schema)."""
from __future__ import annotations

from typing import Optional

import typer

from .app import DbOption, Format, FormatOption, _console, _Guard, app


def _db_path(db: Optional[str]) -> str:
    from ..index import default_db

    return db or default_db()


@app.command()
def check(db: Optional[str] = DbOption, fmt: Format = FormatOption) -> None:
    """Verify the index is whole and consistent (read-only).

    Checks the tables, settings and schema version; that no document id or path is stored twice;
    that every document's fingerprint count matches its rows and its text is stored; that no
    fingerprints or texts are orphaned; and reads every stored value once. Exit status 0 when
    healthy, 1 with a report of each problem, 2 when the file cannot be opened as an index.
    """
    from ..check import check_index
    from ..report import display_path

    with _Guard():
        report = check_index(_db_path(db))
    out = _console()
    if fmt is Format.json:
        import json

        out.out(json.dumps(report.to_dict(), indent=2, default=str), highlight=False)
    elif fmt is Format.csv:
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["check", "count", "example"])
        for p in report.problems:
            for e in p.examples or [""]:
                w.writerow([p.check, p.count, e])
        out.out(buf.getvalue().rstrip("\n"), highlight=False)
    else:
        name = display_path(report.path)
        if report.ok:
            t = report.totals
            out.print(f"ok: {name}: {report.checks} checks passed ({t.get('documents', 0)} documents, "
                      f"{t.get('fingerprints', 0)} fingerprints)", markup=False, soft_wrap=True)
        else:
            err = _console(stderr=True)
            n = sum(1 for _ in report.problems)
            err.print(f"{name}: {n} of {report.checks} checks found problems", markup=False)
            for p in report.problems:
                for line in p.lines():
                    err.print("  " + line, markup=False)
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def upgrade(db: Optional[str] = DbOption) -> None:
    """Upgrade an index made by an older winnowdb to this version's schema, in place.

    The upgrade runs in one transaction: it completes or leaves the index as it was.
    """
    from ..store import SCHEMA_VERSION, Store

    path = _db_path(db)
    with _Guard():
        with Store.open(path, create=False) as store:
            before = store.upgraded_from
    if before is None:
        msg = f"{path} already has the current schema (version {SCHEMA_VERSION}); nothing to do"
    else:
        msg = f"{path} upgraded from schema version {before} to {SCHEMA_VERSION}"
    _console().print(msg, markup=False, soft_wrap=True)
