"""Simhash near-duplicate commands: near-dups (``query FILE --simhash`` lives with ``query``)."""
from __future__ import annotations

from typing import Optional

import typer

from .app import DbOption, Format, FormatOption, Guard, app, console, open_index
from .waiting import waiting_on


@app.command("near-dups")
def near_dups(
    db: Optional[str] = DbOption,
    hamming: int = typer.Option(3, "--hamming", min=0, max=32, metavar="K",
                                help="Largest Hamming distance between two simhashes (Manku et al. use 3)."),
    top: int = typer.Option(50, "--top", "-n", min=0, help="Show the N nearest pairs (0 = all)."),
    fmt: Format = FormatOption,
) -> None:
    """Near-duplicate documents: every pair whose 64-bit simhashes differ in at most K bits.

    Manku et al.'s block tables, in SQL (docs/simhash.md). Skips pairs inside one submission.

    Fields: a, b, distance (differing bits); json and csv add simhash_a, simhash_b.
    """
    columns = ["a", "b", "distance"] + (["simhash_a", "simhash_b"] if fmt is not Format.table else [])
    if fmt is not Format.table:  # DuckDB writes CSV and JSON, streamed to stdout: no Python row per pair
        from ..report.writers import stream_to_stdout

        with Guard():
            with open_index(db, create=False, read_only=True) as idx:
                with waiting_on(idx.store, "searching simhashes", streaming=True):
                    stream_to_stdout(lambda path: idx.write_near_duplicates(path, columns, fmt.value,
                                                                            hamming=hamming, top=top),
                                     json_array=fmt is Format.json, interrupt=idx.interrupt)
        return
    with Guard():
        with open_index(db, create=False, read_only=True) as idx:
            with waiting_on(idx.store, "searching simhashes"):
                rows = idx.near_duplicates(hamming=hamming, top=top)
    from ..report.tables import emit_rows

    emit_rows(console(), rows, columns, fmt.value,
              title=f"near-duplicates (simhash within {hamming} bits)",
              empty=f"no two documents have simhashes within {hamming} bits")
