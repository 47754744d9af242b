#!/usr/bin/env python3
"""Scale benchmark (issue 20): the read path on generated indexes of 10k, 100k (and 1M)
documents, and all pairs of a programming class of 2,000 code files, as CSV and as JSON.

usage:
    python bench/scale.py [--data /tmp/bench-data] [--sizes 10000,100000] [--with-1m]
                          [--repeat 3] [--repeat-slow 1] [--warm 20] [--no-codeclass]
                          [--rebuild] [--tree DIR] [--out FILE.md] [--csv FILE.csv] [--plot FILE.png]

For each size N: the corpus generatedN (bench/corpora.py, ~2.7 KB documents, one in 20 with a
3,000-character passage copied from another; built in --data when missing) and its index
--data/scale-generatedN.duckdb, built with the default settings by a timed `winnowdb add`
(kept and reused by later runs unless --rebuild; the add's figures are kept beside it). Then,
each a fresh process (start-up included), median of --repeat runs (--repeat-slow for `pairs`
and `stats`), with peak memory:
- `add` of the corpus again, nothing changed (after one untimed such add);
- `pairs --top 10`, `stats`;
- `query DOC` of an indexed document that carries a planted copy, and of a file that is not
  indexed (the first half of that document and a paragraph of its own);
- `compare DOC SOURCE` (the document and the one it copies from);
- in process, through the Python API: ``winnowdb.open(db, read_only=True)`` then
  ``idx.query(path, top=10)`` once cold and --warm times warm (median), for both files.
The codeclass corpus (2,000 Java files) is indexed fresh and `pairs --top 0` is written as CSV
and as JSON. Growth from size to size goes to a markdown table, a CSV (--csv) and, when
matplotlib is importable, a log-log plot (--plot).
"""
from __future__ import annotations

import argparse
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
from measure import count_lines, describe_winnowdb, disk_mb, fresh_db, run, winnowdb_cli  # noqa: E402

IN_PROCESS = """
import json, statistics, sys, time
t0 = time.perf_counter()
import winnowdb
db, warm, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
try:
    idx = winnowdb.open(db, read_only=True)
except TypeError:
    idx = winnowdb.open(db)
out = {"open_s": time.perf_counter() - t0}
for path in files:
    t = time.perf_counter(); hits = idx.query(path, top=10); cold = time.perf_counter() - t
    times = []
    for _ in range(warm):
        t = time.perf_counter(); idx.query(path, top=10); times.append(time.perf_counter() - t)
    out[path] = {"cold_s": cold, "median_s": statistics.median(times), "min_s": min(times),
                 "max_s": max(times), "hits": [h["path"] for h in hits]}
print(json.dumps(out))
"""


def timed(args, cli, env, cmd: list[str], repeat: int, name: str, detail: str = "") -> dict:
    """Median of ``repeat`` fresh runs of ``cli + cmd``: a result row."""
    runs = []
    for _ in range(repeat):
        print(f"  {name} ...", file=sys.stderr, flush=True)
        runs.append(run(cli + cmd, out=args.data / "scale-output.txt", cwd=args.data, env=env))
    walls = [r.wall for r in runs]
    return {"what": name, "wall": statistics.median(walls), "runs": walls, "max_rss": max(r.max_rss for r in runs),
            "tree_rss": max(r.tree_rss for r in runs), "other": statistics.mean(r.other_cores for r in runs),
            "out_bytes": runs[-1].out_bytes, "detail": detail}


def build_index(args, cli, env, n: int) -> tuple[Path, Path, dict]:
    corpus = ensure_corpus(args.data, f"generated{n}")
    db = args.data / f"scale-generated{n}.duckdb"
    meta = Path(str(db) + ".add.json")
    if args.rebuild or not db.exists() or not meta.exists():
        fresh_db(db)
        print(f"add generated{n} ...", file=sys.stderr, flush=True)
        out = args.data / "scale-add.txt"
        r = run(cli + ["add", str(corpus), "--db", str(db)], out=out, cwd=args.data, env=env)
        said = (out.read_text().strip().splitlines() or [""])[-1].split(" -> ")[0]
        meta.write_text(json.dumps({"wall": r.wall, "max_rss": r.max_rss, "tree_rss": r.tree_rss,
                                    "other": r.other_cores, "said": said,
                                    "when": f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC"}))
    return corpus, db, json.loads(meta.read_text())


def size_rows(args, cli, env, n: int) -> list[dict]:
    corpus, db, add = build_index(args, cli, env, n)
    copies = read_copies(args.data / f"generated{n}.copies.csv")
    target, source = copies[len(copies) // 2]
    doc, src = corpus / target, corpus / source
    fresh = args.data / f"scale-not-indexed-{n}.txt"
    text = doc.read_text()
    fresh.write_text(text[: len(text) // 2] + "\nA paragraph of my own, written for this benchmark only.\n")
    mb = disk_mb(corpus)
    rows = [{"what": "`add` (fresh index)", "wall": add["wall"], "runs": [add["wall"]], "max_rss": add["max_rss"],
             "tree_rss": add["tree_rss"], "other": add["other"], "out_bytes": 0,
             "detail": f"{mb:.0f} MB, {mb / add['wall']:.1f} MB/s; {add['said']}; index {disk_mb(db):.0f} MB "
                       f"({add['when']})"}]
    dbo = ["--db", str(db)]
    print("  add again, once untimed (an index of an older winnowdb records its files' times) ...",
          file=sys.stderr, flush=True)
    run(cli + ["add", str(corpus)] + dbo, out=args.data / "scale-output.txt", cwd=args.data, env=env)
    rows.append(timed(args, cli, env, ["add", str(corpus)] + dbo, args.repeat_slow, "`add` again (nothing changed)",
                      "every file unchanged: taken by its size and times, not read"))
    rows.append(timed(args, cli, env, ["pairs", "--top", "10"] + dbo, args.repeat_slow, "`pairs --top 10`"))
    rows.append(timed(args, cli, env, ["query", str(doc)] + dbo, args.repeat, "`query DOC` (indexed)",
                      f"{target}, which copies from {source}"))
    rows.append(timed(args, cli, env, ["query", str(fresh)] + dbo, args.repeat, "`query FILE` (not indexed)"))
    rows.append(timed(args, cli, env, ["stats"] + dbo, args.repeat_slow, "`stats`"))
    rows.append(timed(args, cli, env, ["compare", str(doc), str(src)] + dbo, args.repeat, "`compare DOC SOURCE`"))
    print("  in-process queries ...", file=sys.stderr, flush=True)
    out = args.data / "scale-inprocess.json"
    r = run([cli[0], "-c", IN_PROCESS, str(db), str(args.warm), str(doc), str(fresh)], out=out, cwd=args.data,
            env=env)
    got = json.loads(out.read_text())
    for path, label in ((str(doc), "DOC (indexed)"), (str(fresh), "FILE (not indexed)")):
        q = got[path]
        found = "finds its source" if any(h.endswith(source) for h in q["hits"]) else "source NOT among hits"
        rows.append({"what": f"`Index.query` {label}, in process, warm", "wall": q["median_s"],
                     "runs": [q["min_s"], q["max_s"]], "max_rss": r.max_rss, "tree_rss": r.tree_rss,
                     "other": r.other_cores, "out_bytes": 0,
                     "detail": f"median of {args.warm}; min {q['min_s'] * 1e3:.0f} / max {q['max_s'] * 1e3:.0f} ms; "
                               f"cold {q['cold_s']:.2f} s after open {got['open_s']:.2f} s; {found}"})
    return rows


def codeclass_rows(args, cli, env) -> list[dict]:
    corpus = ensure_corpus(args.data, "codeclass")
    db = fresh_db(args.data / "scale-codeclass.duckdb")
    print("codeclass ...", file=sys.stderr, flush=True)
    add = timed(args, cli, env, ["add", str(corpus), "--db", str(db)], 1, "`add` (fresh index)",
                f"{sum(1 for _ in corpus.iterdir())} files, {disk_mb(corpus):.1f} MB")
    rows = [add]
    for fmt in ("csv", "json"):
        row = timed(args, cli, env, ["pairs", "--top", "0", "--format", fmt, "--db", str(db)], args.repeat_slow,
                    f"`pairs --top 0 --format {fmt}`")
        if fmt == "csv":
            npairs = count_lines(args.data / "scale-output.txt") - 1
            row["detail"] = f"{npairs:,} pairs, "
        row["detail"] += f"{row['out_bytes'] / 1e6:.0f} MB written"
        rows.append(row)
    (args.data / "scale-output.txt").unlink()
    return rows


def table(rows: list[dict]) -> list[str]:
    out = ["| command | wall s (median; runs) | peak MB (largest / tree) | other load | detail |",
           "|---|---|---|---|---|"]
    for r in rows:
        wall = f"{r['wall'] * 1e3:.1f} ms" if r["wall"] < 0.1 else f"{r['wall']:.2f}"
        runs = f" ({', '.join(f'{w:.2f}' for w in r['runs'])})" if len(r["runs"]) > 1 and r["wall"] >= 0.1 else ""
        out.append(f"| {r['what']} | {wall}{runs} | {r['max_rss']:,.0f} / {r['tree_rss']:,.0f} | {r['other']:.2f} | "
                   f"{r['detail']} |")
    return out


def growth(results: dict[int, list[dict]], args) -> list[str]:
    sizes = sorted(results)
    names = [r["what"] for r in results[sizes[0]]]
    head = "| command | " + " | ".join(f"{n:,} docs: s / MB" for n in sizes) + " | time ratio, size to next size |"
    out = [head, "|---|" + "---|" * (len(sizes) + 1)]
    csv = ["command,docs,wall_s,max_rss_mb,tree_rss_mb"]
    for i, name in enumerate(names):
        cells, walls = [], []
        for n in sizes:
            r = results[n][i]
            cells.append(f"{r['wall']:.3f} / {r['max_rss']:,.0f}")
            walls.append(r["wall"])
            csv.append(f"\"{name.replace('`', '')}\",{n},{r['wall']:.4f},{r['max_rss']:.0f},{r['tree_rss']:.0f}")
        ratios = [f"{b / a:.1f}x" for a, b in zip(walls, walls[1:])] if len(walls) > 1 else ["-"]
        out.append(f"| {name} | " + " | ".join(cells) + f" | {', '.join(ratios)} |")
    if args.csv:
        args.csv.write_text("\n".join(csv) + "\n")
    if args.plot:
        plot(results, sizes, names, args.plot)
    return out


def plot(results, sizes, names, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, name in enumerate(names):
        ax.plot(sizes, [results[n][i]["wall"] for n in sizes], marker="o", label=name.replace("`", ""))
    ax.plot(sizes, [results[sizes[0]][0]["wall"] * n / sizes[0] for n in sizes], "k:", label="linear (from add)")
    ax.set(xscale="log", yscale="log", xlabel="documents", ylabel="wall seconds", title="winnowdb growth")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--data", type=Path, default=Path("/tmp/bench-data"),
                    help="corpora and indexes live here (not in the repository)")
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated document counts")
    ap.add_argument("--with-1m", action="store_true", help="add 1,000,000 documents (~2.7 GB of text)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each quick command (median shown)")
    ap.add_argument("--repeat-slow", type=int, default=1, help="runs of pairs and stats")
    ap.add_argument("--warm", type=int, default=20, help="warm in-process queries (median shown)")
    ap.add_argument("--no-codeclass", action="store_true", help="skip the programming class")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the indexes even when kept")
    ap.add_argument("--tree", type=Path, default=None, help="measure this winnowdb checkout (PYTHONPATH)")
    ap.add_argument("--out", type=Path, default=None, help="write the markdown report here too")
    ap.add_argument("--csv", type=Path, default=None, help="write the growth figures as CSV here")
    ap.add_argument("--plot", type=Path, default=None, help="write a growth plot (PNG) here")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s] + ([1_000_000] if args.with_1m else [])
    args.data.mkdir(parents=True, exist_ok=True)
    cli, env = winnowdb_cli(args.tree)
    started = dt.datetime.now(dt.timezone.utc)
    lines = [f"# Scale benchmark ({started:%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- measured: {describe_winnowdb(env, args.data)}",
             f"- command: `{shlex.join(['python', 'bench/scale.py', *sys.argv[1:]])}`",
             "- each CLI figure is a fresh process, start-up included; memory in MiB: the largest single "
             "process (GNU time's maximum RSS) / the summed RSS of the process tree sampled every 20 ms; "
             "other load = cores kept busy by the rest of this shared machine meanwhile (bench/measure.py)", ""]
    results = {}
    for n in sizes:
        print(f"== {n} documents", file=sys.stderr, flush=True)
        results[n] = size_rows(args, cli, env, n)
        lines += [f"## {n:,} generated documents", ""] + table(results[n]) + [""]
    if len(sizes) > 1:
        lines += ["## Growth", ""] + growth(results, args) + [""]
    if not args.no_codeclass:
        lines += ["## Programming class: 2,000 Java files (bench/codeclass.py), all pairs", ""]
        lines += table(codeclass_rows(args, cli, env)) + [""]
    ended = dt.datetime.now(dt.timezone.utc)
    lines += [f"Finished {ended:%H:%M} UTC ({(ended - started).total_seconds() / 60:.1f} min); "
              f"{describe().split('; ')[-1]}.", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)


if __name__ == "__main__":
    main()
