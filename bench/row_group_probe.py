#!/usr/bin/env python3
"""How long a query's lookup of its hashes takes, by the row group size of the fingerprints.

usage:
    python bench/row_group_probe.py --db INDEX.duckdb [--sizes 8192,32768,122880] [--docs 41,101]
                                    [--repeat 9] [--keep DIR] [--out FILE.md]

For each size, the index's fingerprints (hash, doc) are copied, ordered by hash (one run), into
a DuckDB file of their own attached with that ROW_GROUP_SIZE (the way winnowdb attaches an index:
store/dbfile.py). Then the distinct hashes of each of --docs (indexed documents: a query's
few hundred hashes) are looked up as query_hits.sql does (a join whose small side DuckDB pushes
into the scan as an IN filter), and the median of --repeat lookups is reported with the row
groups the table has. DuckDB checks every row group's zone map against the looked-up values, so
a lookup costs a little per row group of the table and more per row of the row groups it reads:
small groups read fewer rows, large ones have fewer groups to check.
"""
from __future__ import annotations

import argparse
import datetime as dt
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from machine_info import describe  # noqa: E402
from measure import footer, report  # noqa: E402

LOOKUP = "SELECT f.hash, f.doc FROM fingerprints f JOIN q ON f.hash = q.hash"


def main() -> None:
    import duckdb
    import numpy as np

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--sizes", default="8192,32768,122880")
    ap.add_argument("--docs", default="41,101")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--keep", type=Path, default=None, help="folder for the copies (default: a temporary one)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    started = dt.datetime.now(dt.timezone.utc)
    src = duckdb.connect(str(args.db), read_only=True)
    rows = src.execute("SELECT COUNT(*) FROM fingerprints").fetchall()[0][0]
    docs = [int(d) for d in args.docs.split(",")]
    wanted = {d: np.unique(src.execute("SELECT hash FROM fingerprints WHERE doc = ?", [d]).fetchnumpy()["hash"])
              for d in docs}
    src.close()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="rgprobe-"))
    folder.mkdir(parents=True, exist_ok=True)
    table = []
    for size in (int(s) for s in args.sizes.split(",")):
        copy = folder / f"fingerprints-{size}.duckdb"
        copy.unlink(missing_ok=True)
        con = duckdb.connect()
        con.execute("ATTACH ? AS c (ROW_GROUP_SIZE %d)" % size, [str(copy)])
        con.execute("ATTACH ? AS s (READ_ONLY)", [str(args.db)])
        t = time.perf_counter()
        con.execute("CREATE TABLE c.fingerprints AS SELECT hash, doc FROM s.fingerprints ORDER BY hash")
        copy_s = time.perf_counter() - t
        con.execute("DETACH s")
        con.execute("USE c")
        con.execute("SET dynamic_or_filter_threshold = 10000")  # as store/database.py sets it
        groups = con.execute("SELECT COUNT(DISTINCT row_group_id) FROM pragma_storage_info('fingerprints')"
                             ).fetchall()[0][0]
        cells = []
        for d in docs:
            con.register("q", {"hash": wanted[d]})
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                con.execute(LOOKUP).fetchall()
                times.append(time.perf_counter() - t)
            cells.append(statistics.median(times) * 1e3)
        con.close()
        copy.unlink(missing_ok=True)
        table.append((size, groups, copy_s, cells))
        print(f"  {size}: {groups} groups, {cells}", file=sys.stderr, flush=True)
    lines = [f"# Lookup of a query's hashes by row group size ({started:%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- index: {args.db} ({rows:,} fingerprint rows); DuckDB {duckdb.__version__}",
             f"- command: `{shlex.join(['python', 'bench/row_group_probe.py', *sys.argv[1:]])}`",
             f"- lookup: `{LOOKUP}`, q = the distinct hashes of one indexed document; median of {args.repeat}", "",
             "| row group size | row groups | "
             + " | ".join(f"doc {d} ({len(wanted[d])} hashes) ms" for d in docs) + " |",
             "|---|---|" + "---|" * len(docs)]
    for size, groups, _, cells in table:
        lines.append(f"| {size:,} | {groups:,} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")
    lines += footer()
    report(lines, args.out)


if __name__ == "__main__":
    main()
