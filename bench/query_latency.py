#!/usr/bin/env python3
"""Read latency on a big index: how long `query`, `compare`, `pairs`, `report` and `stats` take.

usage:
    python bench/query_latency.py [--docs 4000] [--mb 80] [--repeat 3] [--keep DIR]
                                  [--out bench/results/query_latency.md]

1. Generates a corpus with bench/speed.py's generator (Zipf words, 5% of the documents copy a
   passage of another) and indexes it with `winnowdb add` (timed, peak memory).
2. Times, through the real CLI (a fresh process each run, as a user runs it), the median of
   --repeat runs of: `query` of an indexed document, `query` of a file that is not indexed (a
   copy of an indexed document with a paragraph of its own), `compare` of two indexed
   documents, `pairs --top 10`, `report --html` of the top 50 pairs, and `stats`.

The commands run the winnowdb that `python -m winnowdb` finds (the current directory comes first);
to measure another checkout on the same index, run from outside the repo with PYTHONPATH pointing
at that checkout (the report names the one used).
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from speed import machine, make_corpus, run  # noqa: E402

REPO = HERE.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=4000)
    ap.add_argument("--mb", type=float, default=80.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, default=None, help="build (or reuse) the corpus and index here")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "query_latency.md")
    args = ap.parse_args()
    cli = [sys.executable, "-m", "winnowdb"]
    tmp = None
    if args.keep is None:
        tmp = tempfile.TemporaryDirectory(prefix="winnowdb-latency-")
        work = Path(tmp.name)
    else:
        work = args.keep
        work.mkdir(parents=True, exist_ok=True)
    corpus, db = work / "corpus", work / "index.duckdb"
    lines = []
    if not db.exists():
        size = make_corpus(corpus, args.docs, args.mb)
        wall, peak, out = run(cli + ["add", str(corpus), "--db", str(db)])
        lines.append(f"| `add` {args.docs} docs, {size / 1e6:.1f} MB | {wall:.1f} s | {peak:.0f} MB | "
                     f"{out.strip()} |")
    else:
        lines.append(f"| (index reused from {db}) | | | |")
    docs = sorted(corpus.iterdir())
    a, b = docs[len(docs) // 3], docs[len(docs) // 3 + 1]
    fresh = work / "not_indexed.txt"
    fresh.write_text(a.read_text()[: 20000] + "\nA paragraph of my own, written for this test only.\n")
    cases = [
        ("`query` an indexed document", ["query", str(a), "-n", "10"]),
        ("`query` a file that is not indexed", ["query", str(fresh), "-n", "10"]),
        ("`compare` two indexed documents", ["compare", str(a), str(b)]),
        ("`pairs --top 10`", ["pairs", "--top", "10"]),
        ("`report --html` (top 50 pairs, one file)", ["report", "--html", str(work / "report.html")]),
        ("`stats`", ["stats"]),
    ]
    for name, cmd in cases:
        walls, peaks = [], []
        for _ in range(args.repeat):
            wall, peak, _ = run(cli + cmd + ["--db", str(db)])
            walls.append(wall)
            peaks.append(peak)
        lines.append(f"| {name} | {statistics.median(walls):.2f} s (runs: "
                     f"{', '.join(f'{w:.2f}' for w in walls)}) | {max(peaks):.0f} MB | `{shlex.join(cmd)}` |")
    import subprocess

    where = subprocess.run([sys.executable, "-c", "import winnowdb; print(winnowdb.__file__)"],
                           capture_output=True, text=True).stdout.strip()
    report = "\n".join([
        "# Read latency on a big index",
        "",
        f"- date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M UTC}",
        f"- machine: {machine()}",
        f"- command: `{shlex.join(['python', 'bench/query_latency.py', *sys.argv[1:]])}`",
        f"- winnowdb: {Path(where).parent} (as the commands import it from {os.getcwd()})",
        "- each command is a fresh `python -m winnowdb` process (start-up included); median of the runs; "
        "memory = peak summed RSS",
        "",
        "| what | time | peak memory | detail |",
        "|---|---|---|---|",
        *lines,
        "",
    ])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report)
    print(report)
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
