"""The ``report`` command: write the HTML report (ranked pairs, side-by-side passages)."""
from __future__ import annotations

from typing import Optional

import typer

from .app import (
    DbOption,
    Guard,
    MaxDfOption,
    MinScoreOption,
    app,
    console,
    fail,
    note_unknown_label,
    note_unstored,
    open_index,
)
from .waiting import waiting_on


@app.command()
def report(
    html: Optional[str] = typer.Option(
        None, "--html", metavar="PATH",
        help="Write the HTML report here: a file (one self-contained page, e.g. report.html), or a "
             "directory when PATH ends with / or is one (index.html plus one page per pair)."),
    db: Optional[str] = DbOption,
    top: int = typer.Option(50, "--top", "-n", min=0, help="Report the top N pairs (0 = all)."),
    min_shared: int = typer.Option(1, "--min-shared", min=1, help="Only pairs sharing at least N fingerprints."),
    new: Optional[str] = typer.Option(None, "--new", metavar="LABEL",
                                      help="Archive mode: only pairs involving documents labelled LABEL."),
    max_df: int = MaxDfOption,
    min_score: Optional[float] = MinScoreOption,
) -> None:
    """An HTML report to read and share: the pairs ranked as by `pairs`, and for each pair both
    files side by side with line numbers, every shared passage in its own colour and linked to
    its partner, boilerplate greyed. Pages are self-contained (no external resources)."""
    if not html:
        fail("say where to write the report: --html report.html (one file) or --html report/ (a directory)")
    from ..report.html import is_directory_target, write_report
    from ..report.paths import display_path

    with Guard():
        with open_index(db, create=False, read_only=True) as idx:
            note_unknown_label(idx, new)
            with waiting_on(idx.store, "writing the report"):
                written, data = write_report(idx.reader, html, top=top, min_shared=min_shared, new_label=new,
                                             max_df=max_df, min_score=min_score)
    note_unstored([pv.comparison for pv in data.pairs])
    n = len(data.pairs)
    where = display_path(str(written[0].parent)) + "/" if is_directory_target(html) else display_path(str(written[0]))
    pages = f" ({len(written)} pages)" if len(written) > 1 else ""
    console().print(f"wrote {where}{pages}: {n} pair{'' if n == 1 else 's'}", markup=False, soft_wrap=True)
