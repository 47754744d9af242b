#!/usr/bin/env python3
"""A/B of the scale commands between two winnowdb checkouts, alternating, on one corpus.

usage:
    python bench/ab_scale.py OLD_TREE NEW_TREE [--corpus generated10000] [--data /tmp/bench-data]
                             [--runs 3] [--out FILE.md]

On a machine shared with other work (this one), figures taken minutes apart are not comparable;
alternating old, new, old, new, ... exposes both trees to the same load. Per run and tree: a
fresh index built by a timed `add` of the corpus (bench/corpora.py; built when missing), then
`pairs --top 10`, `stats`, `query DOC` and `compare DOC SOURCE` on it (a document with a planted
copy and its source), each a fresh process, and `Index.query(DOC)` in one process, warm (the
median of --warm queries after a first one; bench/scale.py's snippet). Medians of wall time, CPU
time and peak memory (bench/measure.py), and the ratio new / old.
"""
from __future__ import annotations

import datetime as dt
import json
import shlex
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import ensure_corpus, read_copies  # noqa: E402
from machine_info import describe  # noqa: E402
from measure import ab_arguments, describe_winnowdb, footer, fresh_db, report, run, winnowdb_cli  # noqa: E402
from scale import IN_PROCESS  # noqa: E402

COMMANDS = ("add", "pairs --top 10", "stats", "query DOC", "compare DOC SOURCE")
#: the in-process query's row (its wall is the warm median; CPU and memory are the whole process's)
IN_PROCESS_ROW = "Index.query(DOC), in process, warm"
#: warm in-process queries per run
WARM = 20


def one_run(tree: Path, label: str, corpus: Path, doc: Path, src: Path, data: Path) -> dict:
    cli, env = winnowdb_cli(tree)
    db = fresh_db(data / f"ab-{label}.duckdb")
    out = data / "ab-output.txt"
    got = {}
    for name in COMMANDS:
        args = {"add": ["add", str(corpus)], "pairs --top 10": ["pairs", "--top", "10"], "stats": ["stats"],
                "query DOC": ["query", str(doc)], "compare DOC SOURCE": ["compare", str(doc), str(src)]}[name]
        print(f"  {label}: {name} ...", file=sys.stderr, flush=True)
        r = run(cli + args + ["--db", str(db)], out=out, cwd=data, env=env)
        got[name] = (r.wall, r.cpu, r.max_rss, r.other_cores)
    print(f"  {label}: in-process query ...", file=sys.stderr, flush=True)
    r = run([cli[0], "-c", IN_PROCESS, str(db), str(WARM), str(doc)], out=out, cwd=data, env=env)
    got[IN_PROCESS_ROW] = (json.loads(out.read_text())[str(doc)]["median_s"], r.cpu, r.max_rss, r.other_cores)
    return got


def main() -> None:
    args = ab_arguments(__doc__.split("\n\n")[0], corpus="generated10000", runs=3).parse_args()
    corpus = ensure_corpus(args.data, args.corpus)
    copies = read_copies(args.data / f"{args.corpus}.copies.csv")
    target, source = copies[len(copies) // 2]
    doc, src = corpus / target, corpus / source
    started = dt.datetime.now(dt.timezone.utc)
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for _ in range(args.runs):
        for label, tree in (("old", args.old), ("new", args.new)):
            runs[label].append(one_run(tree, label, corpus, doc, src, args.data))
    lines = [f"# A/B: scale commands ({started:%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- old: {describe_winnowdb(winnowdb_cli(args.old)[1], args.data)}",
             f"- new: {describe_winnowdb(winnowdb_cli(args.new)[1], args.data)}",
             f"- corpus: {args.corpus} ({sum(1 for _ in corpus.iterdir()):,} files); DOC {target}, SOURCE {source}",
             f"- command: `{shlex.join(['python', 'bench/ab_scale.py', *sys.argv[1:]])}`",
             f"- {args.runs} alternating runs per tree, each command a fresh process; medians; memory MiB "
             "(largest process); other load = cores busy with other work meanwhile", "",
             "| command | old: wall s / CPU s / MiB | new: wall s / CPU s / MiB | new / old (wall) | other load |",
             "|---|---|---|---|---|"]
    for name in (*COMMANDS, IN_PROCESS_ROW):
        cells = []
        for label in ("old", "new"):
            vals = [r[name] for r in runs[label]]
            cells.append(tuple(statistics.median(v[i] for v in vals) for i in range(4)))
        (ow, oc, om, oo), (nw, nc, nm, no) = cells
        lines.append(f"| `{name}` | {ow:.2f} / {oc:.2f} / {om:,.0f} | {nw:.2f} / {nc:.2f} / {nm:,.0f} | "
                     f"{nw / ow:.2f} | {oo:.2f} / {no:.2f} |")
    lines += footer()
    report(lines, args.out)


if __name__ == "__main__":
    main()
