#!/usr/bin/env python3
"""A/B of one winnowdb command between two checkouts, alternating fresh processes.

usage:
    python bench/ab_cli.py OLD_TREE NEW_TREE --runs 3 [--out FILE.md] -- pairs --new 2026 --top 10 --db INDEX
    python bench/ab_cli.py OLD_TREE NEW_TREE --runs 5 --fresh /tmp/ab.duckdb -- add CORPUS --db /tmp/ab.duckdb

Each run, per tree (old, new, old, new, ...: both trees see the same load), runs the command after
``--`` as a fresh ``winnowdb`` process that imports winnowdb from its tree (start-up included,
output to /dev/null), and records its wall time and peak memory (the process and its children).
Every run is listed, then the medians; the two trees' outputs are compared (byte for byte, the
first run of each), so a change that is meant to keep the results shows that it did. Commands run
in /tmp (so that neither tree's checkout is on the path twice): give COMMAND absolute paths.
``--fresh FILE``: FILE (an index), its write-ahead log and its temporary folder are removed before
every run, so each `add` makes a new index; ``--copy SRC DST``: the index SRC is copied to DST
before every run, so each write starts from the same index. With either, the outputs are compared
with their durations ("1.23s") masked.
"""
from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import re
import shlex
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from machine_info import describe  # noqa: E402
from measure import describe_winnowdb, footer, report, run, winnowdb_cli  # noqa: E402


def main() -> None:
    argv = sys.argv[1:]
    if "--" not in argv:
        raise SystemExit("usage: ab_cli.py OLD NEW [--runs N] [--out FILE] -- COMMAND ARGS...")
    split = argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--fresh", type=Path, default=None, help="an index file removed before every run")
    ap.add_argument("--copy", type=Path, nargs=2, default=None, metavar=("SRC", "DST"),
                    help="an index copied to DST before every run")
    args = ap.parse_args(argv[:split])
    command = argv[split + 1:]
    started = dt.datetime.now(dt.timezone.utc)
    got: dict[str, list] = {"old": [], "new": []}
    digests: dict[str, str] = {}
    for i in range(args.runs):
        for label, tree in (("old", args.old), ("new", args.new)):
            print(f"  run {i + 1}, {label} ...", file=sys.stderr, flush=True)
            cmd, env = winnowdb_cli(tree)
            out = Path(f"/tmp/ab_cli_{label}.out")
            fresh = args.fresh if args.copy is None else args.copy[1]
            if fresh is not None:
                for gone in (fresh, Path(f"{fresh}.wal")):
                    gone.unlink(missing_ok=True)
                shutil.rmtree(f"{fresh}.tmp", ignore_errors=True)
            if args.copy is not None:
                shutil.copyfile(args.copy[0], args.copy[1])
                os.sync()  # the copy's writes are not the command's
            got[label].append(run([*cmd, *command], env=env, cwd=Path("/tmp"), out=out))
            if label not in digests:
                text = out.read_bytes()
                if fresh is not None:
                    text = re.sub(rb"\d+\.\d+s\b", b"<s>", text)
                digests[label] = hashlib.sha256(text).hexdigest()[:16]
            out.unlink(missing_ok=True)
    same = "the same" if digests["old"] == digests["new"] else "DIFFERENT"
    lines = [f"# A/B: `winnowdb {shlex.join(command)}` ({started:%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- old: {describe_winnowdb(winnowdb_cli(args.old)[1], Path('/tmp'))}",
             f"- new: {describe_winnowdb(winnowdb_cli(args.new)[1], Path('/tmp'))}",
             f"- command: `{shlex.join(['python', 'bench/ab_cli.py', *sys.argv[1:]])}`",
             f"- {args.runs} alternating runs per tree, each a fresh process (start-up included); "
             f"outputs {same} (sha256 {digests['old']} / {digests['new']})",
             "", "| tree, run | wall s | CPU s | peak MB |", "|---|---|---|---|"]
    for label in ("old", "new"):
        for i, r in enumerate(got[label], 1):
            lines.append(f"| {label} {i} | {r.wall:.2f} | {r.cpu:.2f} | {r.max_rss:,.0f} |")
        lines.append(f"| **{label}, median** | {statistics.median(r.wall for r in got[label]):.2f} | "
                     f"{statistics.median(r.cpu for r in got[label]):.2f} | "
                     f"{statistics.median(r.max_rss for r in got[label]):,.0f} |")
    lines += footer()
    report(lines, args.out)


if __name__ == "__main__":
    main()
