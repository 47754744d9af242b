"""The ``winnowdb`` command line.

Every command takes ``--db`` (or ``$WINNOWDB_DB``; default ./winnowdb.duckdb). Commands that
print results take ``--format table|json|csv``. Problems are reported in one line on stderr with
a non-zero exit status, never a traceback. Heavy modules are imported inside the commands, so
``winnowdb --help`` stays fast. Each feature area registers its commands from its own module.
"""
from __future__ import annotations

import sys

from .app import app
from . import core  # noqa: F401  (registers add, remove, query, pairs, compare, stats, sql)
from . import maintenance  # noqa: F401  (registers check, upgrade)
from . import simhash  # noqa: F401  (registers near-dups)
from . import clusters  # noqa: F401  (registers duplicates, clusters)
from . import report_html  # noqa: F401  (registers report)
from . import spark  # noqa: F401  (registers export, import, import-pairs, spark ...)

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
