#!/usr/bin/env python3
"""A/B of `query` latency between two winnowdb checkouts on one index, alternating.

usage:
    python bench/ab_query.py OLD_TREE NEW_TREE --db INDEX --doc DOC --file FILE [--runs 3]
                             [--warm 20] [--prepare-old CMD] [--prepare-new CMD] [--out FILE.md]

DOC is an indexed document, FILE one that is not. Each run, per tree (old, new, old, new, ...:
both trees see the same load), first runs the tree's --prepare command, if any (a shell command:
e.g. to make the index the schema that tree reads, in place), then, each a fresh process that
imports winnowdb from its tree (bytecode compiled, as an installed tool runs):
- in process: ``winnowdb.open(INDEX, read_only=True)``, ``idx.query(DOC)`` once cold, then
  --warm times warm for DOC and for FILE (medians);
- the CLI: ``winnowdb query DOC --db INDEX`` and ``... FILE``, start-up included (wall time, and
  the peak memory of the process).
Every run is listed, then the medians over runs.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from machine_info import describe  # noqa: E402
from measure import describe_winnowdb, footer, report, run, winnowdb_cli  # noqa: E402

CHILD = r"""
import json, statistics, sys, time
import winnowdb
db, doc, other, warm = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
t0 = time.perf_counter()
idx = winnowdb.open(db, read_only=True)
opened = time.perf_counter() - t0
t0 = time.perf_counter(); idx.query(doc); cold = time.perf_counter() - t0
out = {"open_ms": opened * 1e3, "cold_ms": cold * 1e3}
for name, path in (("doc", doc), ("file", other)):
    times = []
    for _ in range(warm):
        t0 = time.perf_counter(); idx.query(path); times.append(time.perf_counter() - t0)
    out[name + "_warm_ms"] = statistics.median(times) * 1e3
print(json.dumps(out))
"""
FIELDS = ("open_ms", "cold_ms", "doc_warm_ms", "file_warm_ms", "cli_doc_s", "cli_file_s", "cli_peak_mb")
HEAD = ("open ms", "cold query ms", "warm query DOC ms", "warm query FILE ms", "CLI query DOC s",
        "CLI query FILE s", "CLI peak MB")


def measure(tree: Path, args) -> dict:
    cmd, env = winnowdb_cli(tree)
    got = subprocess.run([sys.executable, "-c", CHILD, str(args.db), str(args.doc), str(args.file), str(args.warm)],
                         capture_output=True, text=True, check=True, env=env, cwd="/tmp")
    row = json.loads(got.stdout.strip().splitlines()[-1])
    doc = run([*cmd, "query", str(args.doc), "--db", str(args.db)], env=env, cwd=Path("/tmp"))
    other = run([*cmd, "query", str(args.file), "--db", str(args.db)], env=env, cwd=Path("/tmp"))
    row.update(cli_doc_s=doc.wall, cli_file_s=other.wall, cli_peak_mb=max(doc.max_rss, other.max_rss))
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--doc", type=Path, required=True)
    ap.add_argument("--file", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warm", type=int, default=20)
    ap.add_argument("--prepare-old", default=None)
    ap.add_argument("--prepare-new", default=None)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    started = dt.datetime.now(dt.timezone.utc)
    got: dict[str, list[dict]] = {"old": [], "new": []}
    for i in range(args.runs):
        for label, tree, prepare in (("old", args.old, args.prepare_old), ("new", args.new, args.prepare_new)):
            if prepare:
                subprocess.run(prepare, shell=True, check=True, cwd="/tmp",
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print(f"  run {i + 1}, {label} ...", file=sys.stderr, flush=True)
            got[label].append(measure(tree, args))
    lines = [f"# A/B: `query` latency ({started:%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- old: {describe_winnowdb(winnowdb_cli(args.old)[1], Path('/tmp'))}",
             f"- new: {describe_winnowdb(winnowdb_cli(args.new)[1], Path('/tmp'))}",
             f"- index: {args.db} ({args.db.stat().st_size / 1e9:.2f} GB); DOC {args.doc.name}, FILE {args.file.name}",
             f"- command: `{shlex.join(['python', 'bench/ab_query.py', *sys.argv[1:]])}`",
             f"- {args.runs} alternating runs per tree, each a fresh process; every run listed, then the median",
             "", "| tree, run | " + " | ".join(HEAD) + " |", "|---" * (len(HEAD) + 1) + "|"]
    for label in ("old", "new"):
        for i, r in enumerate(got[label], 1):
            lines.append(f"| {label} {i} | " + " | ".join(_fmt(f, r[f]) for f in FIELDS) + " |")
        lines.append(f"| **{label}, median** | " + " | ".join(
            _fmt(f, statistics.median(r[f] for r in got[label])) for f in FIELDS) + " |")
    lines += footer()
    report(lines, args.out)


def _fmt(field: str, value: float) -> str:
    return f"{value:.2f}" if field.endswith("_s") else f"{value:,.0f}" if field.endswith("_mb") else f"{value:,.1f}"


if __name__ == "__main__":
    main()
