#!/usr/bin/env python3
"""Incremental adds: what adding a new year's documents to a big index costs, against adding the
same documents to an empty one (the brief: check this year's work against every past year
without re-reading it).

usage:
    python bench/incremental.py [--data /tmp/bench-data] [--sizes 100000,1000000] [--new 10000]
                                [--repeat 2] [--years 0] [--tree DIR] [--out FILE.md]

For each size N the index --data/scale-generatedN.duckdb (bench/scale.py builds it) is copied
beside it, and these are timed as fresh processes (start-up included), with peak memory:
- `add YEAR` on the copy: YEAR is --new documents generated like the indexed ones but with
  another seed (bench/corpora.py, seed 99, built in --data as year-generatedNEW), so they share
  the corpus's common k-grams and none of its planted copies;
- `query DOC` on the grown copy, DOC one of the new documents;
- `add TEN` on a new copy: ten of the new documents in a folder of their own.
Each repeat starts from a fresh copy. The same adds into an empty index are the work alone.
With --years K, K new years (seeds 99, 100, ...) are then added one after the other to one more
copy of each index, once: each add's time, peak, and the merge of the runs it made due (what
`add` says of it). A failed command is reported with its error, not retried.
"""
from __future__ import annotations

import argparse
import datetime as dt
import shlex
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import build  # noqa: E402
from machine_info import describe  # noqa: E402
from measure import describe_winnowdb, fresh_db, report, run, winnowdb_cli  # noqa: E402

YEAR_SEED = 99


def year_folder(data: Path, docs: int, k: int = 0) -> Path:
    """The ``k``-th new year's documents (seed ``YEAR_SEED + k``; built when missing)."""
    year = data / (f"year-generated{docs}" if k == 0 else f"year{k + 1}-generated{docs}")
    if not (year.is_dir() and any(year.iterdir())):
        print(f"building {year} ...", file=sys.stderr, flush=True)
        build("generated", year, docs=docs, seed=YEAR_SEED + k)
    return year


def year_corpus(data: Path, docs: int) -> tuple[Path, Path]:
    """The new year's documents and a folder of ten of them (built when missing)."""
    year = year_folder(data, docs)
    ten = data / f"year-generated{docs}-ten"
    if not (ten.is_dir() and len(list(ten.iterdir())) == 10):
        shutil.rmtree(ten, ignore_errors=True)
        ten.mkdir()
        for path in sorted(year.iterdir())[:10]:
            shutil.copy(path, ten / path.name)
    return year, ten


def timed(args, cli, env, cmd: list[str], before=None) -> dict:
    """``cli + cmd`` --repeat times, ``before()`` run (untimed) ahead of each: median wall, peak."""
    runs = []
    for _ in range(args.repeat):
        if before is not None:
            before()
        print(f"  {shlex.join(cmd)} ...", file=sys.stderr, flush=True)
        r = run(cli + cmd, out=args.data / "incremental-output.txt", cwd=args.data, env=env, check=False)
        runs.append(r)
        if not r.ok():
            break
    failed = [r for r in runs if not r.ok()]
    error = (failed[0].stderr.strip().splitlines() or ["?"])[-1] if failed else ""
    walls = [r.wall for r in runs if r.ok()]
    return {"wall": statistics.median(walls) if walls else None, "runs": [r.wall for r in runs],
            "peak": max(r.tree_rss for r in runs), "error": error}


def cell(row: dict) -> str:
    if row["error"]:
        return f"**failed** after {row['runs'][-1]:.1f} s: {row['error'][:120]}"
    runs = ", ".join(f"{w:.2f}" for w in row["runs"])
    return f"{row['wall']:.2f} s ({runs}), {row['peak']:.0f} MB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("/tmp/bench-data"))
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--new", type=int, default=10_000, help="documents in the new year")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--years", type=int, default=0, help="add this many new years in succession (once)")
    ap.add_argument("--tree", type=Path, default=None, help="measure this checkout (PYTHONPATH)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    cli, env = winnowdb_cli(args.tree)
    started = dt.datetime.now(dt.timezone.utc)
    year, ten = year_corpus(args.data, args.new)
    doc = sorted(year.iterdir())[-1]
    copy = args.data / "incremental-copy.duckdb"
    empty = args.data / "incremental-empty.duckdb"
    rows = []

    def copy_of(src: Path):
        def make() -> None:
            fresh_db(copy)
            shutil.copyfile(src, copy)
        return make

    print("the work alone: into an empty index", file=sys.stderr)
    add = timed(args, cli, env, ["add", str(year), "--db", str(empty)], lambda: fresh_db(empty))
    query = timed(args, cli, env, ["query", str(doc), "--db", str(empty)])
    small = timed(args, cli, env, ["add", str(ten), "--db", str(empty)], lambda: fresh_db(empty))
    rows.append(("empty index", "", add, query, small))
    for n in [int(s) for s in args.sizes.split(",") if s]:
        src = args.data / f"scale-generated{n}.duckdb"
        if not src.exists():
            raise SystemExit(f"{src} is missing: build it with bench/scale.py --sizes {n}")
        print(f"generated{n}", file=sys.stderr)
        size = f"{src.stat().st_size / 1e9:.2f} GB"
        add = timed(args, cli, env, ["add", str(year), "--db", str(copy)], copy_of(src))
        query = timed(args, cli, env, ["query", str(doc), "--db", str(copy)]) if not add["error"] else add
        small = timed(args, cli, env, ["add", str(ten), "--db", str(copy)], copy_of(src))
        rows.append((f"{n:,} documents", size, add, query, small))
    years = []
    for n in [int(s) for s in args.sizes.split(",") if s] if args.years else []:
        src = args.data / f"scale-generated{n}.duckdb"
        copy_of(src)()
        for k in range(args.years):
            folder = year_folder(args.data, args.new, k)
            print(f"  generated{n}: add {folder.name} ...", file=sys.stderr, flush=True)
            r = run(cli + ["add", str(folder), "--db", str(copy)], out=args.data / "incremental-output.txt",
                    cwd=args.data, env=env, check=False)
            said = [line for line in r.stderr.splitlines() if "merged" in line]
            years.append((f"{n:,} documents", k + 1, r, said[0].strip() if said else ""))
            if not r.ok():
                break
    fresh_db(copy)
    fresh_db(empty)

    lines = [f"# Incremental adds: {args.new:,} new documents into an index", "",
             f"- started {started:%Y-%m-%d %H:%M} UTC; machine: {describe()}",
             f"- winnowdb: {describe_winnowdb(env, args.data)}",
             f"- command: `python bench/incremental.py {' '.join(shlex.quote(a) for a in sys.argv[1:])}`",
             f"- the new year: {year.name} ({args.new:,} documents, seed {YEAR_SEED}); ten of them: {ten.name}",
             "- each cell: median wall time of fresh processes (each run listed), peak memory of the process tree", "",
             f"| index | file | `add` of {args.new:,} new documents | `query` of a new document "
             "| `add` of 10 new documents |",
             "|---|---|---|---|---|"]
    for name, size, add, query, small in rows:
        lines.append(f"| {name} | {size} | {cell(add)} | {cell(query)} | {cell(small)} |")
    if years:
        lines += ["", f"Successive years of {args.new:,} new documents, each added once to the same copy:", "",
                  "| index | year | `add` | peak | merge of the runs (what `add` says) |", "|---|---|---|---|---|"]
        for name, k, r, said in years:
            error = (r.stderr.strip().splitlines() or ["?"])[-1][:120]
            wall = f"{r.wall:.2f} s" if r.ok() else f"**failed** after {r.wall:.1f} s: {error}"
            lines.append(f"| {name} | {k} | {wall} | {r.tree_rss:.0f} MB | {said or 'none'} |")
    ended = dt.datetime.now(dt.timezone.utc)
    lines += ["", f"Finished {ended:%H:%M} UTC; {describe().split('; ')[-1]}.", ""]
    report(lines, args.out)


if __name__ == "__main__":
    main()
