#!/usr/bin/env python3
"""Output benchmark (issue 19, "on output"): `pairs --top 0` as CSV and as JSON, before and
after a change, on the same indexes, in the same run.

usage:
    python bench/output_formats.py --before DIR [--after DIR] [--data /tmp/bench-data]
                                   [--indexes stdlib,realtext,codeclass] [--repeat 3]
                                   [--work /tmp/bench-data/output-formats] [--out FILE]

--before and --after are winnowdb checkouts (e.g. ``git worktree add --detach DIR COMMIT``;
--after defaults to this one), each run as ``python -m winnowdb`` with the checkout first on
PYTHONPATH. Each corpus of --indexes (built by bench/corpora.py into --data when missing) is
indexed once with ``winnowdb add`` of --after into --work (the index format is the same for
both). Then, --repeat times, in turn: before CSV, before JSON, after CSV, after JSON, each a
fresh process writing to a file in --work (deleted after it is counted); the median wall time
is shown, with its runs. Memory is GNU time's maximum RSS of the process (as `/usr/bin/time -v`
reports it); other load = cores the rest of this shared machine kept busy meanwhile
(bench/measure.py). The rows of each output are counted (CSV: lines less the header; JSON: the
objects' first field), and on outputs under 100 MB both JSON outputs are parsed and compared
with each other, value for value.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import shlex
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import ensure_corpus  # noqa: E402
from machine_info import describe  # noqa: E402
from measure import count_lines, describe_winnowdb, run, winnowdb_cli  # noqa: E402

FORMATS = ("csv", "json")
#: the line of the first field of every pair object, in either writer's layout: ``"a": `` on a
#: line of its own (Python's json, indent=2) or ``{"a":`` (DuckDB, one object per line)
FIRST_FIELD = re.compile(rb'\s*\{?"a":')
#: outputs up to this size are parsed and compared
COMPARE_BYTES = 100e6


def count_rows(path: Path, fmt: str) -> int:
    if fmt == "csv":
        return count_lines(path) - 1
    with open(path, "rb") as fh:
        return sum(1 for line in fh if FIRST_FIELD.match(line))


def measure_index(args, name: str, trees: dict, lines: list[str]) -> None:
    folder = ensure_corpus(args.data, name)
    db = args.work / f"{name}.duckdb"
    cli_after, env_after = trees["after"]
    if not db.exists():
        print(f"add {name} ...", file=sys.stderr, flush=True)
        run(cli_after + ["add", str(folder), "--db", str(db)], cwd=args.work, env=env_after)
    runs: dict[tuple[str, str], list] = {}
    kept: dict[str, Path] = {}
    for i in range(args.repeat):
        for label, (cli, env) in trees.items():
            for fmt in FORMATS:
                out = args.work / f"pairs-{name}-{label}.{fmt}"
                print(f"{name} {label} {fmt} run {i + 1} ...", file=sys.stderr, flush=True)
                r = run(cli + ["pairs", "--top", "0", "--format", fmt, "--db", str(db)], out=out,
                        cwd=args.work, env=env)
                r.rows = count_rows(out, fmt)
                runs.setdefault((label, fmt), []).append(r)
                if fmt == "json" and i == 0 and r.out_bytes < COMPARE_BYTES:
                    kept[label] = out.rename(out.with_suffix(".kept.json"))
                else:
                    out.unlink()
    same = ""
    if len(kept) == 2:
        values = [json.loads(p.read_text(encoding="utf-8")) for p in kept.values()]
        same = "; the two JSON outputs parsed: " + ("equal, value for value and field for field"
                                                    if values[0] == values[1] else "**DIFFERENT**")
    for p in kept.values():
        p.unlink()
    lines += [f"### {name} ({db.name}: `winnowdb add {folder}`)", "",
              "| winnowdb | format | wall s (median; runs) | CPU s | max RSS MiB | other load (cores) | rows | "
              "output MB |",
              "|---|---|---|---|---|---|---|---|"]
    for (label, fmt), rs in runs.items():
        walls = [r.wall for r in rs]
        mid = rs[walls.index(statistics.median_low(walls))]
        lines.append(f"| {label} | {fmt} | **{mid.wall:.2f}**; {', '.join(f'{w:.2f}' for w in walls)} | "
                     f"{mid.cpu:.1f} | {mid.max_rss:,.0f} | {mid.other_cores:.2f} | {mid.rows:,} | "
                     f"{mid.out_bytes / 1e6:.1f} |")
    medians = {key: statistics.median_low([r.wall for r in rs]) for key, rs in runs.items()}
    ratio = {label: medians[(label, "json")] / medians[(label, "csv")] for label in trees}
    lines += ["", f"JSON / CSV wall time: before {ratio['before']:.2f}, after {ratio['after']:.2f}; "
              f"JSON after / before: {medians[('after', 'json')] / medians[('before', 'json')]:.2f}{same}.", ""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--before", type=Path, required=True, help="the winnowdb checkout before the change")
    ap.add_argument("--after", type=Path, default=HERE.parent, help="the checkout after it (default: this one)")
    ap.add_argument("--data", type=Path, default=Path("/tmp/bench-data"), help="where the corpora are")
    ap.add_argument("--indexes", default="stdlib,realtext,codeclass", help="comma-separated corpora")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command (the median is shown)")
    ap.add_argument("--work", type=Path, default=None, help="indexes and outputs (default DATA/output-formats)")
    ap.add_argument("--out", type=Path, default=None, help="write the markdown report here too")
    args = ap.parse_args()
    args.work = args.work or args.data / "output-formats"
    args.work.mkdir(parents=True, exist_ok=True)
    trees = {"before": winnowdb_cli(args.before), "after": winnowdb_cli(args.after)}
    started = dt.datetime.now(dt.timezone.utc)
    lines = [f"# `pairs --top 0`: CSV against JSON ({started:%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             *(f"- {label}: {describe_winnowdb(env, args.work)}" for label, (_, env) in trees.items()),
             f"- command: `{shlex.join(['python', 'bench/output_formats.py', *sys.argv[1:]])}`",
             "- each figure: `python -m winnowdb pairs --top 0 --format csv|json --db INDEX > FILE`, one fresh "
             "process, start-up included, PYTHONPATH = the checkout; memory = GNU time's maximum RSS of the "
             "process (what `/usr/bin/time -v` reports)", ""]
    for name in [n for n in args.indexes.split(",") if n]:
        measure_index(args, name, trees, lines)
    import duckdb

    ended = dt.datetime.now(dt.timezone.utc)
    lines += [f"duckdb {duckdb.__version__}; finished {ended:%H:%M} UTC "
              f"({(ended - started).total_seconds() / 60:.1f} min); {describe().split('; ')[-1]}.", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)


if __name__ == "__main__":
    main()
