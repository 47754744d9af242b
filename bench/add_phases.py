#!/usr/bin/env python3
"""Where a fresh `add` spends its time and memory, phase by phase (issue 19).

usage:
    python bench/add_phases.py [--corpus generated100000] [--data /tmp/bench-data] [--out FILE.md]

One `add` of the corpus (bench/corpora.py builds it when missing) into a fresh index, in this
process through the Python API (workers as the CLI's default), timing its phases through the
module attributes the add calls (wrapped, never replaced; the crash tests wrap the same ones):
reading (walk, read, normalize, fingerprint, commit the documents: until the fingerprints are
stored), storing the fingerprint buckets (``store.runs.insert_part``, one transaction each),
indexing the documents (``store.runs.index_pending``: the documents moved, the statistics
counted), closing the index (the final checkpoint). Resident memory of this process (VmRSS, from
/proc: Linux only) at the end of each phase and its peak (VmHWM); workers are not counted. CPU
seconds per phase of this process (all its threads, DuckDB's too) and of the workers (counted
once they have exited, which is at the end of reading).
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import ensure_corpus  # noqa: E402
from machine_info import describe  # noqa: E402
from measure import report  # noqa: E402


def _status(field: str) -> int:
    """A VmRSS / VmHWM figure of this process, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) // 1024
    return -1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="generated100000")
    ap.add_argument("--data", type=Path, default=Path("/tmp/bench-data"))
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    corpus = ensure_corpus(args.data, args.corpus)
    db = args.data / f"phases-{args.corpus}.duckdb"
    for p in db.parent.glob(db.name + "*"):
        p.unlink()

    import winnowdb
    from winnowdb.store import runs

    marks: list[tuple[str, float, int, float, float]] = []  # (phase ended, time, rss, cpu, workers' cpu)

    def mark(name: str) -> None:
        t = os.times()
        marks.append((name, time.perf_counter(), _status("VmRSS"), t.user + t.system,
                      t.children_user + t.children_system))
    parts = {"n": 0, "seconds": 0.0, "rows": 0}
    insert_part, index_pending = runs.insert_part, runs.index_pending

    def timed_insert_part(store, columns, **options):
        if not parts["n"]:
            mark("reading")
        t = time.perf_counter()
        insert_part(store, columns, **options)
        parts["n"] += 1
        parts["seconds"] += time.perf_counter() - t
        parts["rows"] += int(columns["hash"].shape[0])

    def timed_index_pending(store, *args, **options):
        mark("storing the buckets")
        result = index_pending(store, *args, **options)
        mark("indexing the documents")
        return result

    runs.insert_part, runs.index_pending = timed_insert_part, timed_index_pending
    t0 = time.perf_counter()
    start = os.times()
    cpu0, workers0 = start.user + start.system, start.children_user + start.children_system
    idx = winnowdb.open(db)
    summary = idx.add([corpus])
    t_add = time.perf_counter()
    idx.close()
    mark("closing (checkpoint)")
    total = time.perf_counter() - t0
    rows = [("| phase | ends at s | seconds | CPU s, this process | CPU s, workers | RSS at its end, MB |"),
            "|---|---|---|---|---|---|"]
    before, cpu_before, workers_before = t0, cpu0, workers0
    for name, at, rss, cpu, workers in marks:
        rows.append(f"| {name} | {at - t0:.2f} | {at - before:.2f} | {cpu - cpu_before:.1f} | "
                    f"{workers - workers_before:.1f} | {rss:,} |")
        before, cpu_before, workers_before = at, cpu, workers
    mb = summary.bytes / 1e6
    lines = [f"# `add` phases: {args.corpus} ({dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- winnowdb {winnowdb.__version__} from {Path(winnowdb.__file__).parent}",
             f"- command: `{shlex.join(['python', 'bench/add_phases.py', *sys.argv[1:]])}`",
             f"- {summary.added:,} documents, {mb:.1f} MB, {summary.fingerprints:,} fingerprints; "
             f"add {t_add - t0:.2f} s "
             f"({mb / (t_add - t0):.1f} MB/s), with close {total:.2f} s; peak RSS of this process "
             f"{_status('VmHWM'):,} MB",
             f"- {parts['n']} buckets stored, {parts['rows']:,} rows, {parts['seconds']:.2f} s in their inserts", "",
             *rows, ""]
    report(lines, args.out)


if __name__ == "__main__":
    main()
