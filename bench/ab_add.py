#!/usr/bin/env python3
"""A/B of a fresh `add` between two winnowdb checkouts, alternating, split into its two phases.

usage:
    python bench/ab_add.py OLD_TREE NEW_TREE [--corpus generated100000] [--data /tmp/bench-data]
                           [--runs 2] [--out FILE.md]

Each run is a fresh process per tree (old, new, old, new, ...: both trees see the same load)
that imports winnowdb from its tree, adds the corpus (bench/corpora.py) to a fresh index with the
default workers, and reports: reading (until ``on_finish``: every file read, fingerprinted and
its document committed), storing (the fingerprints stored and the documents indexed), closing
(the final checkpoint), total; CPU of the main process and of the workers; the main process's
peak memory (workers are smaller). Works with any tree whose ``Index.add`` takes ``on_finish``.
"""
from __future__ import annotations

import datetime as dt
import json
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import ensure_corpus  # noqa: E402
from machine_info import describe  # noqa: E402
from measure import ab_arguments, describe_winnowdb, footer, report, winnowdb_cli  # noqa: E402

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import winnowdb
db = Path(sys.argv[3])
for p in db.parent.glob(db.name + "*"):
    p.unlink()
t0 = time.perf_counter()
marks = {}
idx = winnowdb.open(db)
idx.add([sys.argv[2]], on_finish=lambda n: marks.setdefault("read", time.perf_counter() - t0))
added = time.perf_counter() - t0
idx.close()
total = time.perf_counter() - t0
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps(dict(reading=marks["read"], storing=added - marks["read"], closing=total - added, total=total,
                      cpu_main=me.ru_utime + me.ru_stime, cpu_workers=kids.ru_utime + kids.ru_stime,
                      peak_main_mb=me.ru_maxrss / 1024)))
"""
FIELDS = ("reading", "storing", "closing", "total", "cpu_main", "cpu_workers", "peak_main_mb")


def main() -> None:
    args = ab_arguments(__doc__.split("\n\n")[0], corpus="generated100000", runs=2).parse_args()
    corpus = ensure_corpus(args.data, args.corpus)
    started = dt.datetime.now(dt.timezone.utc)
    got: dict[str, list[dict]] = {"old": [], "new": []}
    for _ in range(args.runs):
        for label, tree in (("old", args.old), ("new", args.new)):
            print(f"  {label}: add ...", file=sys.stderr, flush=True)
            out = subprocess.run([sys.executable, "-c", CHILD, str(tree.resolve()), str(corpus),
                                  str(args.data / f"ab-add-{label}.duckdb")],
                                 capture_output=True, text=True, check=True, cwd=args.data)
            got[label].append(json.loads(out.stdout.strip().splitlines()[-1]))
    lines = [f"# A/B: `add` phases ({started:%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- old: {describe_winnowdb(winnowdb_cli(args.old)[1], args.data)}",
             f"- new: {describe_winnowdb(winnowdb_cli(args.new)[1], args.data)}",
             f"- corpus: {args.corpus}",
             f"- command: `{shlex.join(['python', 'bench/ab_add.py', *sys.argv[1:]])}`",
             f"- {args.runs} alternating runs per tree, each a fresh process; every run listed, then the median", "",
             "| tree, run | reading s | storing s | closing s | total s | CPU main s | CPU workers s | peak main MB |",
             "|---|---|---|---|---|---|---|---|"]
    for label in ("old", "new"):
        for i, r in enumerate(got[label], 1):
            lines.append(f"| {label} {i} | " + " | ".join(f"{r[f]:,.2f}" for f in FIELDS) + " |")
        lines.append(f"| **{label}, median** | " + " | ".join(
            f"{statistics.median(r[f] for r in got[label]):,.2f}" for f in FIELDS) + " |")
    lines += footer()
    report(lines, args.out)


if __name__ == "__main__":
    main()
