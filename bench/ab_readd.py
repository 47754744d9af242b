#!/usr/bin/env python3
"""A/B of re-adding a corpus to its own index between two winnowdb checkouts: the CLI, a fresh process.

usage:
    python bench/ab_readd.py OLD_TREE NEW_TREE [--corpus generated100000] [--data /tmp/bench-data]
                             [--runs 4] [--out FILE.md]

What an archive's daily `winnowdb add corpus/` costs when little changed. Both trees index the
corpus (bench/corpora.py) once into an index of their own (the new tree also re-adds it once:
an index it upgraded records the files' times on its first re-add). Then, alternating (old, new,
old, new, ...), each run times `winnowdb add CORPUS --db COPY` as a fresh process, start-up
included, on a fresh copy of its tree's index:
  unchanged  nothing changed;
  +10 new    CORPUS and a folder of 10 new documents (the first files of `generated10000` with
             other names, which are new content for a generated100000 index only in their path:
             what matters is that they are read, fingerprinted and stored).
Wall seconds, CPU seconds (process and workers) and peak memory (GNU time) per run, then the
median per tree.
"""
from __future__ import annotations

import datetime as dt
import shlex
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import ensure_corpus  # noqa: E402
from machine_info import describe  # noqa: E402
from measure import ab_arguments, describe_winnowdb, footer, fresh_db, report, run, winnowdb_cli  # noqa: E402

SCENARIOS = ("unchanged", "+10 new")


def _copy(src: Path, dst: Path) -> Path:
    fresh_db(dst)
    shutil.copyfile(src, dst)
    return dst


def main() -> None:
    ap = ab_arguments(__doc__.split("\n\n")[0], corpus="generated100000", runs=4)
    args = ap.parse_args()
    corpus = ensure_corpus(args.data, args.corpus)
    extra = args.data / "readd-extra"
    if not extra.is_dir():
        source = ensure_corpus(args.data, "generated10000")
        extra.mkdir()
        for i, f in enumerate(sorted(source.iterdir())[:10]):
            (extra / f"extra{i:02d}.txt").write_bytes(b"extra document. " + f.read_bytes())
    started = dt.datetime.now(dt.timezone.utc)
    trees = {"old": args.old, "new": args.new}
    clis = {label: winnowdb_cli(tree) for label, tree in trees.items()}
    base = {}
    for label, (cmd, env) in clis.items():
        base[label] = fresh_db(args.data / f"readd-{label}.duckdb")
        print(f"  {label}: building the index ...", file=sys.stderr, flush=True)
        run([*cmd, "add", str(corpus), "--db", str(base[label])], env=env, cwd=args.data)
        run([*cmd, "add", str(corpus), "--db", str(base[label])], env=env, cwd=args.data)
    got: dict[tuple[str, str], list] = {(label, s): [] for label in trees for s in SCENARIOS}
    work = args.data / "readd-run.duckdb"
    for _ in range(args.runs):
        for label, (cmd, env) in clis.items():
            for scenario in SCENARIOS:
                _copy(base[label], work)
                paths = [str(corpus)] + ([str(extra)] if scenario == "+10 new" else [])
                print(f"  {label}: {scenario} ...", file=sys.stderr, flush=True)
                got[(label, scenario)].append(run([*cmd, "add", *paths, "--db", str(work)], env=env, cwd=args.data))
    fresh_db(work)
    lines = [f"# A/B: re-adding a corpus to its index ({started:%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- old: {describe_winnowdb(clis['old'][1], args.data)}",
             f"- new: {describe_winnowdb(clis['new'][1], args.data)}",
             f"- corpus: {args.corpus} (+10 new: {extra})",
             f"- command: `{shlex.join(['python', 'bench/ab_readd.py', *sys.argv[1:]])}`",
             f"- {args.runs} alternating runs per tree, each a fresh process on a fresh copy of its index", "",
             "| scenario | tree | wall s (each run) | median wall s | median CPU s | peak MB |",
             "|---|---|---|---|---|---|"]
    for scenario in SCENARIOS:
        for label in trees:
            rs = got[(label, scenario)]
            lines.append(f"| {scenario} | {label} | {', '.join(f'{r.wall:.2f}' for r in rs)} | "
                         f"{statistics.median(r.wall for r in rs):.2f} | {statistics.median(r.cpu for r in rs):.2f} | "
                         f"{max(r.max_rss for r in rs):,.0f} |")
    lines += footer()
    report(lines, args.out)


if __name__ == "__main__":
    main()
