"""The Typer application object and what every command shares: options, errors, opening, notes.

Command modules (``core``, and one per feature area) register their commands on ``app`` and use
these shared pieces: ``Guard`` (user-facing errors as one line and an exit status), ``fail``,
``console``, ``open_index`` and the ``note_*`` lines written to stderr.
"""
from __future__ import annotations

import os
from enum import Enum
from typing import NoReturn

import typer

app = typer.Typer(
    name="winnowdb",
    help="Find copied text and code. Fingerprint files into a DuckDB index (winnowing), then ask "
         "which documents copy from which, where exactly, and how much.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from ..version import __version__

        typer.echo(f"winnowdb {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", "-V", is_eager=True, callback=_print_version,
                                          help="Print winnowdb's version and exit.")) -> None:
    """The options of ``winnowdb`` itself (the help text is the app's)."""


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


DbOption = typer.Option(None, "--db", envvar="WINNOWDB_DB", metavar="PATH",
                        help="Index file (default ./winnowdb.duckdb, or $WINNOWDB_DB).")
FormatOption = typer.Option(Format.table, "--format", "-f", help="Output format.")
MaxDfOption = typer.Option(0, "--max-df", min=0, metavar="N",
                           help="Ignore fingerprints found in more than N submissions (common "
                                "material). 0 = auto: a quarter of the submissions, at least 10, "
                                "at most 1000.")
MinScoreOption = typer.Option(None, "--min-score", min=0.0, max=1.0, metavar="S",
                              help="Only pairs scoring at least S (0-1; docs/score.md: 0.5 is worth a look, "
                                   "0.9 a near-certain copy).")
QueryLanguageOption = typer.Option(
    None, "--language", metavar="LANG",
    help="Tokenize a file that is not indexed as code in this language (as `add --language`; "
         "default: by its extension).")


#: width of tables written to a pipe or file (no terminal to fit, and $COLUMNS unset): wide
#: enough that paths stay on one line, so the output can be grepped
PIPE_WIDTH = 200


def console(stderr: bool = False):
    """A rich console on stdout (or stderr); tables written to a pipe are ``PIPE_WIDTH`` wide."""
    import os
    import sys

    from rich.console import Console

    width = None
    if not stderr and "COLUMNS" not in os.environ and not sys.stdout.isatty():
        width = PIPE_WIDTH
    return Console(stderr=stderr, highlight=False, soft_wrap=stderr, width=width)  # stderr: never wrapped


def fail(message: str, code: int = 2) -> NoReturn:
    """Say ``message`` on stderr as one line (``error: ...``) and exit with ``code``."""
    from rich.text import Text

    from ..report.escape import terminal_safe

    console(stderr=True).print(Text.assemble(("error: ", "bold red"), terminal_safe(message)))
    raise typer.Exit(code)


def note_unknown_label(idx, label: str | None) -> None:
    """For archive mode (--new LABEL): say so when no document carries LABEL, so a typo is not
    mistaken for a clean result."""
    if label is None:
        return
    labels = idx.labels()
    if label not in labels:
        from ..report.escape import terminal_safe

        known = ", ".join(labels[:10]) + (" ..." if len(labels) > 10 else "") if labels else "none"
        console(stderr=True).print(terminal_safe(f"note: no document is labelled '{label}' (labels in the "
                                                  f"index: {known})"), markup=False, highlight=False)


def note_changed(idx, paths: list[str]) -> None:
    """Say which of ``paths`` are indexed files changed on disk since, or gone: results show them
    as indexed (``Index.changed_since_indexed``)."""
    from ..report.paths import display_path

    for path in idx.changed_since_indexed(paths):
        if os.path.exists(path):
            what = ("changed on disk since it was indexed; shown as indexed "
                    "(`winnowdb add` it again to use the new version)")
        else:
            what = "no longer exists; shown as indexed (`winnowdb remove` it to drop it from the index)"
        console(stderr=True).print(f"note: {display_path(path)} {what}", markup=False, highlight=False)


def note_unstored(cmps) -> None:
    """Say how many passages of the comparisons ``cmps`` cannot be shown because the index holds
    no text of their documents (``report.compare_view.unstored_note``)."""
    from ..report.compare_view import unstored_note

    note = unstored_note(cmps)
    if note:
        console(stderr=True).print(note, markup=False, highlight=False)


class Guard:
    """Turn user-facing errors into one line + exit status (no tracebacks)."""

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        if et is None or issubclass(et, (typer.Exit, typer.Abort, SystemExit)):
            return False
        from ..errors import WinnowError

        if issubclass(et, WinnowError):
            fail(str(ev), ev.exit_code)
        if issubclass(et, KeyboardInterrupt) or (issubclass(et, RuntimeError) and "interrupted" in str(ev).lower()):
            fail("interrupted", 130)  # DuckDB reports Ctrl-C during a query as RuntimeError
        try:
            import duckdb
            if issubclass(et, duckdb.OutOfMemoryException):
                from ..store.limits import resource_hint

                fail(f"database error: {str(ev).strip().splitlines()[0].rstrip('.')}; {resource_hint(ev)}")
            if issubclass(et, duckdb.Error):
                fail(f"database error: {str(ev).strip().splitlines()[0]}")
        except ImportError:
            pass
        if issubclass(et, BrokenPipeError):  # the reader went away (e.g. `| head`): stop quietly
            import os
            import sys

            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            raise typer.Exit(0)
        if issubclass(et, OSError):
            fail(f"{ev.strerror or ev}: {ev.filename}" if getattr(ev, "filename", None) else str(ev))
        if issubclass(et, MemoryError):
            fail("out of memory")
        return False


def open_index(db, **kw):
    """``winnowdb.open`` with a command's options (``--db`` None: the default index)."""
    import winnowdb

    return winnowdb.open(db, **kw)


def new_index_workers(db, paths: list[str], jobs: int | None, stack):
    """(listing, workers) for ``add`` when ``--db`` names no file yet: every file walked will be
    read, so the worker processes start (``ingest.prepare.start_workers``; None for an add that
    runs in process) as soon as the walk has found enough to read to need them, and load their
    kernels while the rest is walked and the index is made; ``stack`` (an ``ExitStack``) stops
    them on any failure before the add reads with them. (None, None) for an index that exists:
    it is opened first, so that a bad ``--db`` is reported at once."""
    from ..index import default_db
    from ..ingest.prepare import PARALLEL_MIN_BYTES, PARALLEL_MIN_FILES, default_jobs, start_workers
    from ..ingest.walk import walk
    from ..store.database import MEMORY

    path = db if db is not None else default_db()
    if path == MEMORY or os.path.lexists(path):
        return None, None
    jobs_n = jobs if jobs is not None else default_jobs()
    started = []

    def start(files: int, size: int) -> None:
        workers = start_workers(jobs_n, files, size)
        if workers is not None:
            stack.enter_context(workers)
            started.append(workers)

    listing = walk(paths, once=(PARALLEL_MIN_FILES, PARALLEL_MIN_BYTES, start))
    return listing, started[0] if started else None
