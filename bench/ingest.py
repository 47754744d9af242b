#!/usr/bin/env python3
"""Ingest benchmark (issue 19): a fresh `winnowdb add` on real text, code and 100,000 small
documents; stdlib all-vs-all against copydetect; `pairs` as JSON against CSV on big results.

usage:
    python bench/ingest.py [--data /tmp/bench-data] [--corpora realtext,stdlib,generated100000]
                           [--jobs default] [--repeat 1] [--formats-on realtext,stdlib]
                           [--no-copydetect] [--tree DIR] [--out bench/results/ingest.md]

Corpora are built by bench/corpora.py into --data when missing (``generatedN`` = N generated
documents; ``codeclass`` too). Every figure is a fresh process, start-up included (see
bench/measure.py for how time, memory and the machine's other load are taken):
1. `winnowdb add CORPUS --db NEW` per corpus (and per --jobs value: ``default`` = no -j, or a
   number), --repeat times: wall, CPU, MB/s (corpus bytes / wall), peak memory.
2. stdlib all-vs-all: `add` then `pairs --top 0 --format csv` on a fresh index, against
   copydetect 0.5 (``CopyDetector(test_dirs=[stdlib], extensions=["py"], noise_t=25,
   guarantee_t=30).run()``: its all-pairs comparison, no HTML report) in a fresh process of the
   Python given by --copydetect-python (default: this one), same run; the ratio of the two.
3. `pairs --top 0` as CSV and as JSON on the indexes of --formats-on (written to files).
winnowdb is this Python's ``-m winnowdb`` (run from --data, not from a source tree), or the
checkout --tree. The report (markdown) names the commit measured.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import ensure_corpus  # noqa: E402
from machine_info import describe  # noqa: E402
from measure import count_lines, describe_winnowdb, disk_mb, fresh_db, run, winnowdb_cli  # noqa: E402

COPYDETECT = ("import sys\nfrom copydetect import CopyDetector\n"
              "d = CopyDetector(test_dirs=[sys.argv[1]], extensions=['py'], noise_t=25, guarantee_t=30,"
              " silent=True, autoopen=False)\nd.run()\nprint(len(d.test_files))\n")


def files_in(folder: Path) -> int:
    return sum(len(files) for _r, _d, files in os.walk(folder))


def mem(r) -> str:
    return f"{r.max_rss:,.0f} / {r.tree_rss:,.0f}"


def ingest_rows(args, cli, env, lines: list[str]) -> dict[str, Path]:
    lines += ["## `winnowdb add`, fresh index", "",
              "| corpus | files | MB | -j | wall s | CPU s | MB/s | peak MB (largest process / tree) "
              "| other load (cores) | add says |", "|---|---|---|---|---|---|---|---|---|---|"]
    dbs = {}
    for name in args.corpora:
        folder = ensure_corpus(args.data, name)
        size, nfiles = disk_mb(folder), files_in(folder)
        for jobs in args.jobs:
            runs = []
            for _ in range(args.repeat):
                db = fresh_db(args.data / f"ingest-{name}.duckdb")
                opts = [] if jobs == "default" else ["-j", jobs]
                print(f"add {name} -j {jobs} ...", file=sys.stderr, flush=True)
                out = args.data / "add-output.txt"
                runs.append(run(cli + ["add", str(folder), "--db", str(db)] + opts, out=out, cwd=args.data,
                                env=env))
                said = out.read_text().strip().splitlines()[-1:] or [""]
            walls = [r.wall for r in runs]
            best = runs[walls.index(statistics.median_low(walls))]
            runs_text = f" (runs {', '.join(f'{w:.1f}' for w in walls)})" if len(runs) > 1 else ""
            lines.append(f"| {name} | {nfiles:,} | {size:.1f} | {jobs} | {best.wall:.2f}{runs_text} | "
                         f"{best.cpu:.1f} | **{size / best.wall:.1f}** | {mem(best)} | {best.other_cores:.2f} | "
                         f"{said[0].split(' -> ')[0]} |")
            dbs[name] = db
    lines.append("")
    return dbs


def allvsall_rows(args, cli, env, lines: list[str]) -> None:
    folder = ensure_corpus(args.data, "stdlib")
    size = disk_mb(folder)
    db = fresh_db(args.data / "allvsall-stdlib.duckdb")
    print("stdlib all-vs-all ...", file=sys.stderr, flush=True)
    add = run(cli + ["add", str(folder), "--db", str(db)], cwd=args.data, env=env)
    out = args.data / "allvsall-stdlib.csv"
    pairs = run(cli + ["pairs", "--top", "0", "--format", "csv", "--db", str(db)], out=out, cwd=args.data, env=env)
    npairs = count_lines(out) - 1
    total = add.wall + pairs.wall
    lines += ["## stdlib all-vs-all: winnowdb against copydetect 0.5, same run", "",
              f"{files_in(folder)} files, {size:.1f} MB ({folder}).", "",
              "| tool | step | wall s | CPU s | peak MB (largest / tree) | other load (cores) | result |",
              "|---|---|---|---|---|---|---|",
              f"| winnowdb | `add` | {add.wall:.2f} | {add.cpu:.1f} | {mem(add)} | {add.other_cores:.2f} | |",
              f"| winnowdb | `pairs --top 0 --format csv` | {pairs.wall:.2f} | {pairs.cpu:.1f} | {mem(pairs)} | "
              f"{pairs.other_cores:.2f} | {npairs:,} pairs, {pairs.out_bytes / 1e6:.1f} MB |",
              f"| winnowdb | **add + pairs** | **{total:.2f}** | {add.cpu + pairs.cpu:.1f} | | | |"]
    if args.no_copydetect:
        lines += ["", "copydetect: not run (--no-copydetect).", ""]
        return
    cd_env = dict(env, PYTHONHASHSEED="0")
    cd_env.pop("PYTHONPATH", None)
    print("copydetect ...", file=sys.stderr, flush=True)
    cd_out = args.data / "copydetect-output.txt"
    cd = run([args.copydetect_python, "-c", COPYDETECT, str(folder)], out=cd_out, cwd=args.data, env=cd_env,
             check=False)
    if not cd.ok():
        lines += [f"| copydetect | failed: {cd.stderr.strip().splitlines()[-1:]} | | | | | |", ""]
        return
    n = int(cd_out.read_text().split()[0])
    lines += [f"| copydetect 0.5 | `CopyDetector(...).run()`, all pairs | {cd.wall:.2f} | {cd.cpu:.1f} | {mem(cd)} | "
              f"{cd.other_cores:.2f} | {n} files, {n * (n - 1) // 2:,} pairs compared |", "",
              f"**copydetect / winnowdb (add + pairs): {cd.wall / total:.1f} times** (issue 19 goal: at least 30, "
              f"aim 50).", ""]


def format_rows(args, cli, env, dbs: dict[str, Path], lines: list[str]) -> None:
    lines += ["## `pairs --top 0`: CSV against JSON", "",
              "| index | format | wall s | CPU s | peak MB (largest / tree) | other load (cores) | pairs | output MB |",
              "|---|---|---|---|---|---|---|---|"]
    for name in args.formats_on:
        db = dbs.get(name)
        if db is None or not db.exists():
            lines.append(f"| {name} | (no index: add it to --corpora) | | | | | | |")
            continue
        for fmt in ("csv", "json"):
            out = args.data / f"pairs-{name}.{fmt}"
            print(f"pairs {name} {fmt} ...", file=sys.stderr, flush=True)
            r = run(cli + ["pairs", "--top", "0", "--format", fmt, "--db", str(db)], out=out, cwd=args.data, env=env)
            npairs = count_lines(out) - 1 if fmt == "csv" else "(as CSV)"
            lines.append(f"| {name} | {fmt} | {r.wall:.2f} | {r.cpu:.1f} | {mem(r)} | {r.other_cores:.2f} | "
                         f"{npairs if isinstance(npairs, str) else f'{npairs:,}'} | {r.out_bytes / 1e6:.1f} |")
            out.unlink()
    lines.append("")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--data", type=Path, default=Path("/tmp/bench-data"),
                    help="corpora and indexes live here (not in the repository)")
    ap.add_argument("--corpora", default="realtext,stdlib,generated100000",
                    help="comma-separated: realtext, stdlib, codeclass, generatedN")
    ap.add_argument("--jobs", default="default", help="comma-separated -j values to time add with "
                    "('default' = no -j option), e.g. default,1")
    ap.add_argument("--repeat", type=int, default=1, help="adds per corpus (the median is shown)")
    ap.add_argument("--formats-on", default="realtext,stdlib",
                    help="indexes (of --corpora) to time pairs --top 0 as CSV and JSON on ('' = none)")
    ap.add_argument("--no-allvsall", action="store_true", help="skip the stdlib all-vs-all section")
    ap.add_argument("--no-copydetect", action="store_true", help="skip copydetect in the all-vs-all")
    ap.add_argument("--copydetect-python", default=sys.executable,
                    help="a Python that has copydetect 0.5 installed (default: this one)")
    ap.add_argument("--tree", type=Path, default=None, help="measure this winnowdb checkout (PYTHONPATH)")
    ap.add_argument("--out", type=Path, default=None, help="write the markdown report here too")
    args = ap.parse_args()
    args.corpora = [c for c in args.corpora.split(",") if c]
    args.jobs = [j for j in args.jobs.split(",") if j]
    args.formats_on = [c for c in args.formats_on.split(",") if c]
    args.data.mkdir(parents=True, exist_ok=True)
    cli, env = winnowdb_cli(args.tree)
    started = dt.datetime.now(dt.timezone.utc)
    lines = [f"# Ingest benchmark ({started:%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- measured: {describe_winnowdb(env, args.data)}",
             f"- command: `{shlex.join(['python', 'bench/ingest.py', *sys.argv[1:]])}`",
             "- every figure is one fresh process, start-up included; MB = 10^6 bytes of input; memory in "
             "MiB: the largest single process (GNU time's maximum RSS) / the summed RSS of the process "
             "tree sampled every 20 ms (workers included; shared pages counted per process); other load = "
             "cores kept busy by the rest of this shared machine meanwhile (bench/measure.py)", ""]
    body: list[str] = []
    dbs = ingest_rows(args, cli, env, body)
    if not args.no_allvsall:
        allvsall_rows(args, cli, env, body)
    if args.formats_on:
        format_rows(args, cli, env, dbs, body)
    import duckdb

    ended = dt.datetime.now(dt.timezone.utc)
    lines += body + [f"duckdb {duckdb.__version__}; finished {ended:%H:%M} UTC "
                     f"({(ended - started).total_seconds() / 60:.1f} min); {describe().split('; ')[-1]}.", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)


if __name__ == "__main__":
    main()
