#!/usr/bin/env python3
"""An index built by several adds: how a query slows as runs pile up, and what merging them costs.

usage:
    python bench/merge_runs.py [--corpus generated100000] [--data /tmp/bench-data] [--parts 4]
                               [--warm 20] [--out FILE.md]

The corpus (bench/corpora.py) is added in --parts equal adds, as an archive grows year by year,
into a fresh index through the Python API, in one process. After each add: the add's time, the
merge it made due (store/merge.py: the runs are merged once they cost a lookup more than three
times one run would) and its time, the runs recorded, the index file's size, and the median of
--warm in-process queries (``Index.query``) of a document with a planted copy (its source in an
earlier part, so every query after that part has a real hit; "-" before). Figures for the
winnowdb this Python imports.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import ensure_corpus, read_copies  # noqa: E402
from machine_info import describe  # noqa: E402
from measure import footer, fresh_db, report  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="generated100000")
    ap.add_argument("--data", type=Path, default=Path("/tmp/bench-data"))
    ap.add_argument("--parts", type=int, default=4)
    ap.add_argument("--warm", type=int, default=20)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    import winnowdb
    from winnowdb.store import merge

    corpus = ensure_corpus(args.data, args.corpus)
    files = sorted(str(p) for p in corpus.iterdir())
    n = len(files)
    bounds = [n * i // args.parts for i in range(args.parts + 1)]
    part_of = {Path(f).name: i for i in range(args.parts) for f in files[bounds[i]:bounds[i + 1]]}
    copies = [(t, s) for t, s in read_copies(args.data / f"{args.corpus}.copies.csv")
              if part_of[s] < part_of[t]]
    target, source = copies[0]
    doc = corpus / target
    db = fresh_db(args.data / "merge-runs.duckdb")
    started = dt.datetime.now(dt.timezone.utc)
    rows = []
    with winnowdb.open(db) as idx:
        for i in range(args.parts):
            t = time.perf_counter()
            s = idx.add(files[bounds[i]:bounds[i + 1]])
            add_s = time.perf_counter() - t
            runs = merge.runs_of(idx.store) or []
            idx.query(doc)  # the first query of this state reads its blocks
            times = []
            for _ in range(args.warm):
                t = time.perf_counter()
                hits = idx.query(doc)
                times.append(time.perf_counter() - t)
            found = None if part_of[source] > i else any(h["path"].endswith(source) for h in hits)
            rows.append((i + 1, bounds[i + 1], add_s, s.merged_seconds, len(runs), os.path.getsize(db) / 1e6,
                         statistics.median(times), found))
            print(f"  add {i + 1}: {rows[-1]}", file=sys.stderr, flush=True)
    lines = [f"# An index built by {args.parts} adds: runs and merges ({started:%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- winnowdb: {Path(winnowdb.__file__).parent} {winnowdb.__version__}",
             f"- corpus: {args.corpus} ({n:,} files) in {args.parts} equal adds; query DOC {target} "
             f"(copies {source}, added in an earlier part)",
             f"- command: `{shlex.join(['python', 'bench/merge_runs.py', *sys.argv[1:]])}`", "",
             "| after add | documents | add s (merge included) | of it: merge s | runs recorded | index MB | "
             "`Index.query(DOC)` warm median ms | finds its source |",
             "|---|---|---|---|---|---|---|---|"]
    for i, docs, add_s, merge_s, runs, mb, q, found in rows:
        lines.append(f"| {i} | {docs:,} | {add_s:.1f} | {merge_s:.1f} | {runs} | {mb:,.0f} | {q * 1e3:.0f} | "
                     f"{'-' if found is None else 'yes' if found else 'NO'} |")
    lines += footer()
    report(lines, args.out)


if __name__ == "__main__":
    main()
