"""Would fingerprints split into tables by hash range (shards) make a query's lookup faster?

On a copy of an index, the fingerprints are copied into ``--shards`` tables per count (consecutive
ranges of the hash buckets, ``store.buckets``, each table ordered by hash, in row groups of
``--row-group`` rows), and one lookup is timed three ways, warm, in process:

- *single*: the index's own table, ``hash IN (SELECT hash FROM q)`` (what ``query_found.sql`` does);
- *routed*: a UNION ALL with a branch per shard, each given only the query hashes of its range;
- *unrouted*: the same branches, each given every query hash.

``q`` holds the distinct hashes of one indexed document (``--doc``, a path suffix), as DuckDB
gets them in ``query_found.sql`` (``dynamic_or_filter_threshold`` raised as ``Store`` raises it),
so each branch reads the row groups its zone maps cannot rule out. Also timed, on one thread: the
same lookup against a range scan over about as many contiguous row groups, and lookups of fewer
hashes, which separate the zone-map checks from the reading of row groups.

    python bench/lookup_shards.py --db INDEX --doc generated100000/doc44505.txt --work /tmp/copy.duckdb
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import time
from pathlib import Path

import duckdb
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from winnowdb.store.buckets import BOUNDS, BUCKETS  # noqa: E402
from winnowdb.store.dbfile import IN_FILTER_VALUES  # noqa: E402


def build(con, shards: int) -> float:
    """Copy the fingerprints into ``shards`` tables fp<shards>_<i>, ordered by hash."""
    t = time.perf_counter()
    per = BUCKETS // shards
    for s in range(shards):
        lo, hi = BOUNDS[s * per], BOUNDS[(s + 1) * per]
        upper = f" AND hash < {hi}" if hi < (1 << 63) else ""
        name = f"fp{shards}_{s:02d}"
        con.execute(f"DROP TABLE IF EXISTS {name}")
        con.execute(f"CREATE TABLE {name} (hash BIGINT, doc INTEGER, pos INTEGER)")
        con.execute(f"INSERT INTO {name} SELECT hash, doc, pos FROM fingerprints "
                    f"WHERE hash >= {lo}{upper} ORDER BY hash")
    con.execute("CHECKPOINT")
    return time.perf_counter() - t


def timed(con, sql: str, runs: int) -> float:
    """Median ms of ``runs`` executions after 3 warm-up ones."""
    for _ in range(3):
        con.execute(sql).fetchnumpy()
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        con.execute(sql).fetchnumpy()
        out.append(time.perf_counter() - t)
    return 1000 * statistics.median(out)


def branches(shards: int, routed: bool) -> str:
    per = BUCKETS // shards
    parts = []
    for s in range(shards):
        lo, hi = BOUNDS[s * per], BOUNDS[(s + 1) * per]
        upper = f" AND hash < {hi}" if hi < (1 << 63) else ""
        where = f" WHERE hash >= {lo}{upper}" if routed else ""
        parts.append(f"SELECT doc, hash FROM fp{shards}_{s:02d} "
                     f"WHERE hash IN (SELECT hash FROM q{where})")
    return " UNION ALL ".join(parts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="the index (not changed: a copy is made)")
    ap.add_argument("--work", required=True, help="where the copy goes (kept, with its shard tables)")
    ap.add_argument("--doc", required=True,
                    help="a path suffix naming the indexed document whose hashes are looked up")
    ap.add_argument("--shards", default="4,16,64")
    ap.add_argument("--row-group", type=int, default=8192, help="rows per row group of the shard tables")
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--reuse", action="store_true", help="use --work as it is (its shard tables already built)")
    ap.add_argument("--out", help="write the markdown here too")
    a = ap.parse_args()
    counts = [int(x) for x in a.shards.split(",")]
    if not a.reuse:
        shutil.copyfile(a.db, a.work)
    con = duckdb.connect()
    con.execute(f"ATTACH '{a.work}' AS w (ROW_GROUP_SIZE {a.row_group})")
    con.execute("USE w")
    built = {n: build(con, n) for n in counts} if not a.reuse else {}
    con.execute(f"SET dynamic_or_filter_threshold = {IN_FILTER_VALUES}")
    doc = con.execute("SELECT doc FROM documents WHERE path LIKE ?", ["%" + a.doc]).fetchone()[0]
    hashes = con.execute("SELECT DISTINCT hash FROM fingerprints WHERE doc = ?", [doc]).fetchnumpy()["hash"]
    con.register("q", {"hash": hashes})
    rows = con.execute("SELECT COUNT(*) FROM fingerprints").fetchone()[0]
    groups = con.execute("SELECT COUNT(DISTINCT row_group_id) "
                         "FROM pragma_storage_info('fingerprints')").fetchone()[0]
    when = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    cpu = platform.processor() or platform.machine()
    if os.path.exists("/proc/cpuinfo"):
        cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), cpu)
    took = f", built in {', '.join(f'{n}: {s:.0f} s' for n, s in built.items())}" if built else ""
    lines = [f"# Fingerprints split by hash range: one lookup ({when})", "",
             f"- machine: {os.cpu_count()} cores, {cpu}; DuckDB {duckdb.__version__}",
             f"- index: {a.db} ({rows:,} fingerprint rows in {groups:,} row groups); "
             f"shard tables written in row groups "
             (f"of {a.row_group:,} rows{took}" if not a.reuse else "as the copy holds them (--reuse)")
             + " (the first shard's mean below: a shard's last group is partial)",
             f"- lookup: the {hashes.shape[0]} distinct hashes of {a.doc}; median of {a.runs} warm runs, 2 threads",
             f"- command: `python bench/lookup_shards.py {' '.join(sys.argv[1:])}`", "",
             "| layout | lookup ms |", "|---|---|"]
    single = "SELECT doc, hash FROM fingerprints WHERE hash IN (SELECT hash FROM q)"
    lines.append(f"| single table (the index's) | {timed(con, single, a.runs):.1f} |")
    for n in counts:
        grouped = con.execute(f"SELECT COUNT(*), (SELECT COUNT(DISTINCT row_group_id) FROM "
                              f"pragma_storage_info('fp{n}_00')) FROM fp{n}_00").fetchone()
        size = f"{grouped[0] / max(1, grouped[1]):,.0f} rows per row group"
        lines.append(f"| {n} shards ({size}), routed | {timed(con, branches(n, True), a.runs):.1f} |")
        lines.append(f"| {n} shards, unrouted | {timed(con, branches(n, False), a.runs):.1f} |")
    con.execute("SET threads = 1")
    lines += ["", "One thread, the index's table:", "", "| lookup | ms |", "|---|---|"]
    rng = np.random.default_rng(1)
    for m in (50, 200, hashes.shape[0]):
        pick = ",".join(str(int(x)) for x in rng.choice(hashes, min(m, hashes.shape[0]), replace=False))
        sql = f"SELECT count(doc) FROM fingerprints WHERE hash IN ({pick})"
        lines.append(f"| {m} of its hashes, IN list | {timed(con, sql, a.runs):.1f} |")
    share = min(1.0, 760 / max(1, groups))
    hi = con.execute(f"SELECT quantile_disc(hash, {share}) FROM fingerprints").fetchone()[0]
    n_range = con.execute(f"SELECT COUNT(*) FROM fingerprints WHERE hash <= {hi}").fetchone()[0]
    lines.append(f"| a range scan of the lowest {n_range:,} rows (~760 row groups) | "
                 f"{timed(con, f'SELECT count(doc) FROM fingerprints WHERE hash <= {hi}', a.runs):.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        Path(a.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
