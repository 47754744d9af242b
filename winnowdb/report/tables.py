"""Results as a table for people (rich), or as JSON or CSV for programs (``writers``).

Document text is always handed to rich as ``Text`` objects (never parsed as markup), so file
contents cannot restyle or garble the terminal output; every header, cell, title and caption is
made safe for the terminal once, here.
"""
from __future__ import annotations

from typing import Any, Iterable

from .escape import terminal_safe
from .paths import below, common_folder, folder_note, relative_path
from .writers import write_csv_rows, write_json_rows

__all__ = ["emit_rows", "FORMATS", "PATH_COLUMNS", "PERCENT_COLUMNS"]

FORMATS = ("table", "json", "csv")
#: columns that hold a document's path (shown relative to the folder all shown paths share)
PATH_COLUMNS = ("a", "b", "path")
#: columns shown as percentages in tables
PERCENT_COLUMNS = ("containment", "contained", "resemblance", "density", "expected_density", "score")


def _cell(value: Any, column: str) -> str:
    if isinstance(value, float):
        if column in PERCENT_COLUMNS or column.startswith("containment"):
            return f"{100 * value:.1f}%"
        return f"{value:.4g}"
    if value is None:
        return ""
    if column in ("a", "b", "path") and isinstance(value, str):
        return relative_path(value)  # made safe with the rest of the cell (``emit_rows``)
    return str(value)


def emit_rows(console, rows: list[dict], columns: list[str], fmt: str, *, title: str | None = None,
              empty: str = "no results", headers: dict[str, str] | None = None,
              notes: Iterable[str] = (), shorten_paths: bool = True) -> None:
    """Print ``rows`` (dicts) as a table, JSON (a list of objects) or CSV with ``columns``.

    Only the table is for people: there ``headers`` may rename columns, ``notes`` are printed as
    the caption, and paths (``PATH_COLUMNS``) are shown below the folder they all share, named
    in the caption (``shorten_paths=False`` keeps them whole). JSON and CSV are never changed.
    Headers, cells, title and caption are made safe for the terminal here, once (``terminal_safe``,
    never read as markup): give them raw, paths included (``relative_path``, not ``display_path``)."""
    if fmt == "json":
        write_json_rows(rows, columns)
        return
    if fmt == "csv":
        write_csv_rows(rows, columns)
        return
    from rich.table import Table
    from rich.text import Text

    if not rows:
        console.print(Text(empty, style="dim"))
        return
    cells = [[_cell(r.get(c), c) for c in columns] for r in rows]
    path_at = [i for i, c in enumerate(columns) if c in PATH_COLUMNS and isinstance(rows[0].get(c), str)]
    folder = common_folder(row[i] for row in cells for i in path_at) if shorten_paths else ""
    if folder:
        for row in cells:
            for i in path_at:
                row[i] = below(row[i], folder)
    caption = "\n".join(([folder_note(folder)] if folder else []) + list(notes))
    table = Table(title=Text(terminal_safe(title), style="table.title") if title else None,
                  caption=Text(terminal_safe(caption, lines=True), style="dim") if caption else None,
                  show_lines=False,
                  header_style="bold")
    for c in columns:
        numeric = isinstance(rows[0].get(c), (int, float))
        # numbers never wrap (nor do their headers): the text columns take what width is left
        header = Text(terminal_safe((headers or {}).get(c, c)))  # a column name is text, never markup
        table.add_column(header, justify="right" if numeric else "left",
                         overflow="fold", no_wrap=numeric, ratio=None if numeric else 1)
    for row in cells:
        table.add_row(*(Text(terminal_safe(v, lines=True)) for v in row))
    console.print(table)
