"""DuckDB vs Spark (local[2]) on the same exported index, at about 1M and 10M fingerprint rows.

    python bench/spark_bench.py                      # both sizes, writes bench/results/spark.md
    python bench/spark_bench.py --rows 1e6 --out /tmp/spark.md --keep /tmp/spark-bench

For each size a synthetic corpus is written (plain-text files of pseudo-words with a Zipf
distribution, about 4,000 characters each; every 10th document copies a passage of 25-60% from
an earlier one, every 50th is a near-duplicate of one, and a boilerplate header sits in every
8th), indexed with ``winnowdb add`` (default settings), exported with ``winnowdb export --parquet``,
and then the same SQL files run on both engines over that one export:

* ``pairs.sql`` (all pairs, default max_df), written out as Parquet on both engines;
* ``query_hits.sql`` for one document;
* and, for the fingerprinting step, ``winnowdb add`` (one process) against
  ``winnowdb spark fingerprint`` on local[2] for the same files.

Every phase runs in its own process (``--phase``), so each gets a cold engine and its own peak
memory (ru_maxrss of the process and, for Spark, of its JVM). Results: a Markdown report with
the measurements and the machine.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC_CHARS = 4000


# --------------------------------------------------------------------------- corpus
def make_corpus(root: Path, target_rows: int, seed: int = 7) -> dict:
    """Write documents whose default fingerprints number about ``target_rows``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab_size = 50_000
    lengths = rng.integers(2, 10, size=vocab_size)
    vocab = ["".join(rng.choice(letters, size=n)) for n in lengths]
    ranks = np.arange(1, vocab_size + 1)
    p = 1.0 / ranks ** 1.05
    p /= p.sum()
    # measured: about 950 fingerprints per document with the default k=12, w=8 (density
    # 2/(w+1) of the letters, plus the copied passages and headers)
    n_docs = max(10, int(round(target_rows / 950)))
    words_per_doc = DOC_CHARS // 6
    header = ("Course CS 101 Assignment submission header: name, student number, date, and the "
              "honour code statement that this work is my own. " * 3)
    (root / "docs").mkdir(parents=True)
    (root / "boilerplate").mkdir()
    (root / "boilerplate" / "header.txt").write_text(header, encoding="utf-8")
    texts: list[str] = []
    copies = near = 0
    for i in range(n_docs):
        words = [vocab[j] for j in rng.choice(vocab_size, size=words_per_doc, p=p)]
        text = " ".join(words)
        if i >= 10 and i % 10 == 0:  # copies a passage of an earlier document
            src = texts[int(rng.integers(0, i))]
            share = float(rng.uniform(0.25, 0.6))
            start = int(rng.integers(0, max(1, int(len(src) * (1 - share)))))
            passage = src[start:start + int(len(src) * share)]
            cut = int(rng.integers(0, len(text)))
            text = text[:cut] + " " + passage + " " + text[cut:]
            copies += 1
        elif i >= 10 and i % 50 == 5:  # a near-duplicate: a few words changed
            src = texts[int(rng.integers(0, i))].split(" ")
            for j in rng.integers(0, len(src), size=max(1, len(src) // 40)):
                src[int(j)] = vocab[int(rng.integers(0, vocab_size))]
            text = " ".join(src)
            near += 1
        if i % 8 == 3:
            text = header + "\n\n" + text
        texts.append(text)
        (root / "docs" / f"doc{i:06d}.txt").write_text(text, encoding="utf-8")
    return {"documents": n_docs, "copies": copies, "near_duplicates": near,
            "mb": sum(len(t) for t in texts) / 1e6}


# --------------------------------------------------------------------------- phases (subprocesses)
def _rss() -> dict:
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"rss_mb": round(me), "child_rss_mb": round(kids)}


def phase_add(work: Path) -> dict:
    import winnowdb

    t = time.perf_counter()
    with winnowdb.open(work / "index.duckdb") as idx:
        idx.add([work / "corpus" / "boilerplate"], boilerplate=True)
        s = idx.add([work / "corpus" / "docs"])
    add_s = time.perf_counter() - t
    from winnowdb.export import export_parquet

    t = time.perf_counter()
    with winnowdb.open(work / "index.duckdb", read_only=True) as idx:
        m = export_parquet(idx.store.con, work / "export", buckets=16)
        stats = idx.store.con.execute(
            "SELECT COUNT(*) AS hashes, COUNT(*) FILTER (WHERE df >= 2) AS shared, MAX(df) AS max_df "
            "FROM fingerprint_df").fetchall()[0]
        cap = idx.store.default_max_df()
    export_s = time.perf_counter() - t
    size = sum(f.stat().st_size for f in (work / "export").rglob("*.parquet"))
    return {"add_s": add_s, "fingerprints": m["tables"]["fingerprints"]["rows"],
            "documents": m["tables"]["documents"]["rows"], "export_s": export_s, "export_mb": size / 2**20,
            "index_mb": (work / "index.duckdb").stat().st_size / 2**20, "distinct_hashes": stats[0],
            "hashes_df2": stats[1], "max_hash_df": stats[2], "default_max_df": cap, **_rss()}


def phase_duckdb(work: Path) -> dict:
    import duckdb

    import winnowdb
    from winnowdb import sqlfiles
    from winnowdb.export import duckdb_views

    out: dict = {}
    # 1) the native index file
    with winnowdb.open(work / "index.duckdb", read_only=True) as idx:
        t = time.perf_counter()
        rows = idx.pairs(top=0)
        out["pairs_index_s"] = time.perf_counter() - t
        out["pairs"] = len(rows)
        query_file = work / "corpus" / "docs" / "doc000010.txt"
        t = time.perf_counter()
        hits = idx.query(query_file, top=0)
        out["query_index_s"] = time.perf_counter() - t
        out["query_hits"] = len(hits)
    # 2) the Parquet export, through views (what Spark reads), written out as Parquet
    con = duckdb.connect()
    duckdb_views(con, work / "export")
    cap = int(con.execute("SELECT max_df FROM default_max_df").fetchall()[0][0])
    sql = sqlfiles.load("pairs")
    params = sqlfiles.bind(sql, {"max_df": cap, "min_shared": 1, "new_label": None})
    target = work / "pairs-duckdb.parquet"
    t = time.perf_counter()
    con.execute(f"COPY ({sql}) TO '{target}' (FORMAT parquet)", params)
    out["pairs_parquet_s"] = time.perf_counter() - t
    out["pairs_parquet_rows"] = con.execute(f"SELECT COUNT(*) FROM read_parquet('{target}')").fetchall()[0][0]
    con.close()
    out.update(_rss())
    return out


def phase_spark(work: Path, memory: str) -> dict:
    t0 = time.perf_counter()
    from winnowdb.spark import jobs
    from winnowdb.spark.session import get_session

    spark = get_session("local[2]", conf={"spark.driver.memory": memory, "spark.sql.shuffle.partitions": "8"})
    out = {"session_s": time.perf_counter() - t0}
    target = work / "pairs-spark"
    t = time.perf_counter()
    jobs.pairs(spark, str(work / "export"), str(target), overwrite=True)
    out["pairs_s"] = time.perf_counter() - t
    out["pairs_rows"] = spark.read.parquet(str(target)).count()
    t = time.perf_counter()
    jobs.pairs(spark, str(work / "export"), str(target), overwrite=True)
    out["pairs_warm_s"] = time.perf_counter() - t
    t = time.perf_counter()
    hits = jobs.query(spark, str(work / "export"), work / "corpus" / "docs" / "doc000010.txt", top=0,
                      registered=True)
    out["query_s"] = time.perf_counter() - t
    out["query_hits"] = len(hits)
    spark.stop()
    out.update(_rss())
    return out


def phase_spark_fingerprint(work: Path, memory: str) -> dict:
    t0 = time.perf_counter()
    from winnowdb.spark import jobs
    from winnowdb.spark.session import get_session

    docs = sorted((work / "corpus" / "docs").iterdir())
    (work / "files.txt").write_text("".join(f"{p}\n" for p in docs), encoding="utf-8")
    (work / "boilerplate.txt").write_text(f"{work / 'corpus' / 'boilerplate' / 'header.txt'}\n", encoding="utf-8")
    spark = get_session("local[2]", conf={"spark.driver.memory": memory, "spark.sql.shuffle.partitions": "8"})
    out = {"session_s": time.perf_counter() - t0}
    t = time.perf_counter()
    m = jobs.fingerprint(spark, str(work / "files.txt"), str(work / "spark-fp"),
                         boilerplate_list=str(work / "boilerplate.txt"), buckets=16, overwrite=True)
    out["fingerprint_s"] = time.perf_counter() - t
    out["fingerprints"] = m["tables"]["fingerprints"]["rows"]
    out["documents"] = m["tables"]["documents"]["rows"]
    spark.stop()
    out.update(_rss())
    return out


def run_phase(name: str, work: Path, memory: str) -> dict:
    cmd = [sys.executable, __file__, "--phase", name, "--work", str(work), "--memory", memory]
    load0 = os.getloadavg()[0]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"phase {name} failed")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["wall_s"] = wall
    result["load"] = (load0, os.getloadavg()[0])  # 1-minute load average before and after
    print(f"  {name}: {json.dumps({k: round(v, 2) if isinstance(v, float) else v for k, v in result.items()})}",
          file=sys.stderr, flush=True)
    return result


# --------------------------------------------------------------------------- report
def _f(x: float) -> str:
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def report(results: list[dict], args) -> str:
    import duckdb
    import pyspark

    lines = ["# winnowdb on Spark: DuckDB vs Spark local[2] on the same export", ""]
    lines.append(f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    lines.append(f"- machine: {os.cpu_count()} CPUs (nproc), "
                 f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.1f} GiB RAM; "
                 f"Python {platform.python_version()}; DuckDB {duckdb.__version__}; "
                 f"pyspark {pyspark.__version__}; {platform.platform()}")
    lines.append(f"- command: `python bench/spark_bench.py {' '.join(sys.argv[1:])}`".rstrip())
    lines.append("- corpus: synthetic plain text (bench/spark_bench.py: Zipf pseudo-words, ~4,000 chars "
                 "per document, 10% with a copied passage, 2% near-duplicates, a boilerplate header in 12.5%), "
                 "winnowdb default settings (text k=12, w=8), default max_df.")
    lines.append(f"- Spark: local[2], spark.driver.memory={args.memory}, spark.sql.shuffle.partitions=8, "
                 "ANSI mode on (default). DuckDB: default threads (2). Each phase is a fresh process; "
                 "times are wall-clock seconds of the step alone (Spark session start-up listed apart).")
    lines.append("")
    lines.append("## Pair counting and query (sql/pairs.sql, sql/query_hits.sql)")
    lines.append("")
    lines.append("| fingerprint rows | documents | pairs | DuckDB pairs, index file | DuckDB pairs, Parquet export -> Parquet | "
                 "Spark pairs -> Parquet (cold / warm) | Spark session start | DuckDB query | Spark query | "
                 "peak RSS DuckDB | peak RSS Spark JVM |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        a, d, s = r["add"], r["duckdb"], r["spark"]
        lines.append(
            f"| {a['fingerprints']:,} | {a['documents']:,} | {d['pairs']:,} | {_f(d['pairs_index_s'])} s | "
            f"{_f(d['pairs_parquet_s'])} s | {_f(s['pairs_s'])} / {_f(s['pairs_warm_s'])} s | {_f(s['session_s'])} s | "
            f"{_f(d['query_index_s'])} s | {_f(s['query_s'])} s | {d['rss_mb']:,} MB | {s['child_rss_mb']:,} MB |")
    lines.append("")
    lines.append("Both engines returned the same number of pairs: "
                 + ", ".join(f"{r['add']['fingerprints']:,} rows: DuckDB {r['duckdb']['pairs_parquet_rows']:,}, "
                             f"Spark {r['spark']['pairs_rows']:,}" for r in results) + ".")
    lines.append("")
    lines.append("## Index, export and fingerprinting")
    lines.append("")
    lines.append("| fingerprint rows | text MB | distinct hashes | hashes in >= 2 docs | default max_df | "
                 "`winnowdb add` (1 process) | export | export size | index size | Spark fingerprint local[2] |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        a, c = r["add"], r["corpus"]
        fp = r.get("spark_fp")
        fp_cell = f"{_f(fp['fingerprint_s'])} s ({fp['fingerprints']:,} rows)" if fp else "not run"
        lines.append(f"| {a['fingerprints']:,} | {c['mb']:.1f} | {a['distinct_hashes']:,} | {a['hashes_df2']:,} | "
                     f"{a['default_max_df']} | {_f(a['add_s'])} s | {_f(a['export_s'])} s | {a['export_mb']:.1f} MB | "
                     f"{a['index_mb']:.1f} MB | {fp_cell} |")
    lines.append("")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="1e6,1e7", help="target fingerprint rows, comma-separated")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "spark.md"))
    ap.add_argument("--keep", default=None, help="work directory to keep (default: a temporary one)")
    ap.add_argument("--memory", default="8g", help="spark.driver.memory (local mode)")
    ap.add_argument("--fingerprint-rows-max", type=float, default=1e7,
                    help="run the Spark fingerprint job only up to this size")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        work = Path(args.work)
        fn = {"add": lambda: phase_add(work), "duckdb": lambda: phase_duckdb(work),
              "spark": lambda: phase_spark(work, args.memory),
              "spark_fp": lambda: phase_spark_fingerprint(work, args.memory)}[args.phase]
        print(json.dumps(fn()))
        return
    import tempfile

    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="winnowdb-spark-bench-"))
    results = []
    try:
        for target in [int(float(x)) for x in args.rows.split(",")]:
            work = base / f"rows-{target}"
            if work.exists():
                shutil.rmtree(work)
            work.mkdir(parents=True)
            print(f"{target:,} rows: corpus ...", file=sys.stderr, flush=True)
            corpus = make_corpus(work / "corpus", target)
            r = {"target": target, "corpus": corpus}
            r["add"] = run_phase("add", work, args.memory)
            r["duckdb"] = run_phase("duckdb", work, args.memory)
            r["spark"] = run_phase("spark", work, args.memory)
            if target <= args.fingerprint_rows_max:
                r["spark_fp"] = run_phase("spark_fp", work, args.memory)
            results.append(r)
            (base / "results.json").write_text(json.dumps(results, indent=2))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    text = report(results, args)
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
