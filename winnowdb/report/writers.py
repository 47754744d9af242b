"""Machine-readable output: JSON and CSV on standard output, for every command, in one way.

Field names and values are never shortened or styled. Rows stream out as they come (``rows`` may
be any iterable, a database cursor's batches included): a JSON array or CSV of a million pairs
is never built in memory as one string. Large results are not Python rows at all: DuckDB writes
them (``store.output``) into a named pipe that ``stream_to_stdout`` copies to standard output
while they are written, so they never exist whole, in memory or on disk.
"""
from __future__ import annotations

import csv
import json
import os
import sys
from typing import Any, Callable, Iterable

__all__ = ["write_json", "write_json_rows", "write_csv_rows", "stream_to_stdout", "EMPTY_JSON", "CHUNK"]


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


#: what ``write_json_rows`` (and so every JSON command) writes for no rows
EMPTY_JSON = b"[]\n"
#: bytes read from the pipe at a time
CHUNK = 1 << 20


def stream_to_stdout(write: Callable[[str], Any], *, json_array: bool = False,
                     interrupt: Callable[[], None] | None = None) -> Any:
    """Call ``write(path)``, which writes a file at ``path`` (DuckDB's ``COPY ... TO``), and copy
    what it writes to standard output as it is written; ``write``'s result.

    ``path`` is a named pipe in a private temporary folder: ``write`` runs in a thread while this
    one copies from the pipe to standard output, so the output is never whole anywhere (a
    temporary file would hold all of it, in memory where /tmp is a tmpfs). A JSON array with no
    element (``json_array``: DuckDB writes ``[``, a blank line, ``]``) comes out as ``[]``, as
    ``write_json_rows`` writes it. Where there are no named pipes, a temporary file is used.

    Ctrl-C and a reader of standard output that goes away (``BrokenPipeError``, which the CLI's
    ``Guard`` ends quietly on) reach this thread, the one Python signals: it then calls
    ``interrupt`` (e.g. the DuckDB connection's: the query stops and ``write`` fails), reads and
    drops what is still written until ``write`` has ended, and raises. An error of ``write`` is
    raised once what it wrote is copied.
    """
    import tempfile
    import threading

    sys.stdout.flush()
    with tempfile.TemporaryDirectory(prefix="winnowdb-out-") as tmp:
        path = os.path.join(tmp, "output")
        if not hasattr(os, "mkfifo"):
            result = write(path)
            with open(path, "rb") as fh:
                _copy(fh.fileno(), json_array)
            return result
        os.mkfifo(path, 0o600)
        read_end = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # no writer yet: open without waiting
        # a write end of our own, held until ``write`` returns: the copy sees the end of the output
        # only then, even if ``write`` never opens the pipe (it failed first) or opens it late
        held = os.open(path, os.O_WRONLY)
        os.set_blocking(read_end, True)
        done: dict[str, Any] = {}

        def run() -> None:
            try:
                done["result"] = write(path)
            except BaseException as exc:  # noqa: BLE001 (raised in the calling thread)
                done["error"] = exc
            finally:
                os.close(held)

        writer = threading.Thread(target=run, name="winnowdb-output", daemon=True)
        writer.start()
        try:
            _copy(read_end, json_array)
        except BaseException:
            try:
                if interrupt is not None:
                    interrupt()
                while os.read(read_end, CHUNK):  # let ``write`` end: never on a full pipe, nor on
                    pass  # opening a pipe that has no reader (that would wait for ever)
            finally:
                os.close(read_end)  # after a second Ctrl-C here, ``write`` gets EPIPE
            writer.join()
            raise
        os.close(read_end)  # the end of the output: every write end is closed, ``write`` returned
        writer.join()
        if "error" in done:
            raise done["error"]
        return done["result"]


def _copy(fd: int, json_array: bool) -> None:
    """Copy everything readable from ``fd`` to standard output (bytes, unchanged), but an empty
    JSON array as ``EMPTY_JSON``."""
    import codecs

    out = getattr(sys.stdout, "buffer", None)
    text = codecs.getincrementaldecoder("utf-8")() if out is None else None  # a chunk may end mid-character
    chunk = b""
    if json_array:  # hold the first bytes back until they cannot be an empty array any more
        while len(chunk) <= 16:
            more = os.read(fd, CHUNK)
            if not more:
                break
            chunk += more
        if chunk.split() in ([b"[", b"]"], [b"[]"]):
            chunk = EMPTY_JSON
    else:
        chunk = os.read(fd, CHUNK)
    while chunk:
        if out is not None:
            out.write(chunk)
        else:
            assert text is not None  # made above when there is no binary stdout
            sys.stdout.write(text.decode(chunk))
        chunk = os.read(fd, CHUNK)
    if text is not None:
        sys.stdout.write(text.decode(b"", final=True))
    sys.stdout.flush()


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
