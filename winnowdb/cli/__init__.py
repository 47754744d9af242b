"""The ``winnowdb`` command line.

Every command takes ``--db`` (or ``$WINNOWDB_DB``; default ./winnowdb.duckdb). Commands that
print results take ``--format table|json|csv``. Problems are reported in one line on stderr with
a non-zero exit status, never a traceback. Heavy modules are imported inside the commands, so
``winnowdb --help`` stays fast. Each feature area registers its commands from its own module.
"""
from __future__ import annotations

import os
import sys

# winnowdb does no linear algebra, and numpy's OpenBLAS starts a thread per core when numpy is
# imported, which spins for a while: ~0.09 s of CPU of a `query`'s 0.33 s, taken from DuckDB's
# threads on a small machine (bench/RESULTS.md, Read path). Set before anything imports numpy;
# a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# the order of these imports is the order of the commands in --help: not sorted
# isort: off
from .app import app
from . import core  # noqa: F401  (registers add, remove, query, pairs, compare, stats, sql)
from . import maintenance  # noqa: F401  (registers check, upgrade)
from . import simhash  # noqa: F401  (registers near-dups)
from . import clusters  # noqa: F401  (registers duplicates, clusters)
from . import report_html  # noqa: F401  (registers report)
from . import spark  # noqa: F401  (registers export, import, import-pairs, spark ...)
# isort: on

__all__ = ["app", "main"]


def _reflow_help() -> None:
    """Join the wrapped lines of each command's docstring into paragraphs, so ``--help`` wraps to
    the terminal's width (this typer keeps single line breaks after the first paragraph)."""
    import inspect

    for info in app.registered_commands:
        callback = info.callback
        if callback is not None and callback.__doc__:
            paragraphs = inspect.cleandoc(callback.__doc__).split("\n\n")
            callback.__doc__ = "\n\n".join(" ".join(p.split()) for p in paragraphs)


_reflow_help()


def main() -> None:
    """Console-script entry point.

    When the command is done (its index closed, its output written), the process ends at once
    with the command's status: a Ctrl-C that arrives while the interpreter would be shutting
    down (when Python has already restored the default SIGINT action) can no longer kill it
    with a signal status instead of 0 or 130, and the shutdown costs no time. So does closing an
    index: its file is detached when the command closes it, and DuckDB's memory is left for the
    exit to free (``store.lifetime``).
    """
    import os
    import signal

    from ..store import lifetime

    lifetime.end_at_once()
    try:
        app()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        code = 130
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # done: a late Ctrl-C changes nothing now
    except (ValueError, OSError):
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # e.g. the reader of a pipe has gone
    os._exit(code)


if __name__ == "__main__":
    main()
