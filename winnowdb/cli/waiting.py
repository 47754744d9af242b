"""Progress on stderr for long work: ``steps_bar`` for work counted in steps (`check`, `upgrade`,
`import`), and ``waiting_on``, a transient line while a command waits on DuckDB (`pairs`,
`report`, `clusters`, `duplicates`, `near-dups`, `remove`, `export`: a minute or more at
1,000,000 documents, with nothing shown before it): the command, the time elapsed, and the share
of the running statement that DuckDB reports (``Store.progress``, polled by a thread) where it can
estimate one, else a pulsing bar. DuckDB gives no share for a statement with a source it cannot
measure (a one-row ``SELECT`` without ``FROM``, a branch the planner found empty): `pairs`' query
is one. Shown on a terminal only; ``waiting_on`` only once the wait passes ``DELAY_S``.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

#: seconds a command waits before the line appears (quick commands never show it)
DELAY_S = 1.0
#: seconds between two looks at DuckDB's progress
POLL_S = 0.1

__all__ = ["DELAY_S", "POLL_S", "waiting_on", "steps_bar"]


@contextmanager
def waiting_on(store, label: str, *, streaming: bool = False):
    """Within the block, a transient line on stderr: ``label``, DuckDB's percent of the statement
    running on ``store``'s connection (a pulsing bar where it gives none, and between statements)
    and the time elapsed.
    Nothing (and DuckDB tracks nothing) when stderr is not a terminal, or when the command is
    ``streaming`` its output (CSV or JSON, as DuckDB writes it) to standard output and that is one."""
    import sys

    from .app import console

    err = console(stderr=True)
    if not err.is_terminal or (streaming and sys.stdout.isatty()):
        yield
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    stop = threading.Event()

    def poll() -> None:
        if stop.wait(DELAY_S):
            return
        bar = Progress(TextColumn(f"[bold]{label}"), BarColumn(), TextColumn("{task.fields[share]}"),
                       TimeElapsedColumn(), console=err, transient=True)
        task = bar.add_task(label, total=None, share="")
        with bar:
            while not stop.is_set():
                done = store.progress()
                if done < 0:
                    bar.update(task, total=None, share="")
                else:
                    bar.update(task, total=100, completed=min(done, 100.0), share=f"{done:3.0f}%")
                stop.wait(POLL_S)

    with store.tracking_progress():
        watcher = threading.Thread(target=poll, name="winnowdb-progress", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            stop.set()
            watcher.join(timeout=1.0)


def steps_bar(label: str, unit: str, err):
    """A transient progress bar on stderr (shown on a terminal only) for work counted in steps:
    ``label`` (or the task's description, when ``label`` is empty), done/total ``unit``, the
    time left. Give its tasks a total (an int) before it is shown."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(TextColumn(f"[bold]{label}" if label else "[bold]{task.description}"), BarColumn(),
                    TextColumn("{task.completed:.0f}/{task.total:.0f} " + unit), TimeRemainingColumn(),
                    console=err, transient=True, disable=not err.is_terminal)
