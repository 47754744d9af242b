#!/usr/bin/env python3
"""A/B of two versions of sql/query_hits.sql on one index, in one process, alternating.

usage:
    python bench/ab_sql.py INDEX OLD_SQL [NEW_SQL] --files FILE... [--runs 15] [--out FILE.md]

OLD_SQL is a file (for example `git show HEAD~1:sql/query_hits.sql > /tmp/old.sql`); NEW_SQL is
the checkout's sql/query_hits.sql unless given. For each FILE (an indexed document, which then
does not find its own submission, or a file that is not indexed), the query's fingerprints are
registered once, exactly as ``Index.query`` does, and the two texts run alternately --runs times
each with the index's default max-df: both see the same load and the same warm cache. Their rows
must be equal (the script stops otherwise); the medians and the ratio are printed as a markdown
table (and written to --out). A text that reads the relation query_found (query_hits.sql since
the query runs in two statements) runs after the checkout's sql/query_found.sql, timed together.
"""
from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from machine_info import describe  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("index")
    ap.add_argument("old_sql")
    ap.add_argument("new_sql", nargs="?", default=str(HERE.parent / "sql" / "query_hits.sql"))
    ap.add_argument("--files", nargs="+", required=True)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--out")
    a = ap.parse_args()

    import winnowdb
    from winnowdb.analysis.sides import Reader
    from winnowdb.store import sqlfiles
    from winnowdb.store.stats import common_floor

    idx = winnowdb.open(a.index, read_only=True)
    store = idx.store
    reader = Reader(store)
    con = store.connection
    texts = {"old": Path(a.old_sql).read_text(), "new": Path(a.new_sql).read_text()}
    cap = reader.max_df(None)
    floor = common_floor(store)
    lines = ["| file | kind | query hashes | old ms | new ms | new / old |", "|---|---|---|---|---|---|"]
    for path in a.files:
        side = reader.side(path, None)
        exclude = side.submission
        times: dict[str, list[float]] = {"old": [], "new": []}
        rows = {}
        with store.relations(query_fingerprints={"hash": side.fingerprints["hash"]}):
            for _ in range(a.runs):
                for name, sql in texts.items():
                    values = dict(top=10, max_df=cap, common_floor=floor, exclude=exclude, min_shared=1)
                    params = sqlfiles.bind(sql, values)
                    t = time.perf_counter()
                    if "FROM query_found" in sql:  # the second statement: the first's rows come first
                        first = sqlfiles.load("query_found")
                        con.register("query_found", con.execute(first, sqlfiles.bind(first, values)).fetchnumpy())
                    rows[name] = con.execute(sql, params).fetchall()
                    times[name].append(time.perf_counter() - t)
        if rows["old"] != rows["new"]:
            sys.exit(f"{path}: the two queries give different rows")
        old, new = (statistics.median(times[k]) * 1000 for k in ("old", "new"))
        kind = "indexed (own submission excluded)" if exclude else "not indexed"
        lines.append(f"| {Path(path).name} | {kind} | {len(set(side.fingerprints['hash'].tolist()))} "
                     f"| {old:.1f} | {new:.1f} | {new / old:.2f} |")
    head = (f"{dt.date.today().isoformat()}, {describe()}; index {a.index}, default max-df {cap}; "
            f"median of {a.runs} alternating runs each; `python bench/ab_sql.py {a.index} {a.old_sql} "
            f"--files {' '.join(a.files)}`")
    text = head + "\n\n" + "\n".join(lines) + "\n"
    print(text)
    if a.out:
        Path(a.out).write_text(text)


if __name__ == "__main__":
    main()
