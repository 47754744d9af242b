#!/usr/bin/env python3
"""A/B of two versions of sql/query_found.sql on one index, in one process, alternating.

usage:
    python bench/ab_query_found.py INDEX OLD_SQL --corpus generatedN [--data /tmp/bench-data]
                                   [--runs 15] [--max-df 3]

OLD_SQL is a file (for example `git show HEAD~1:sql/query_found.sql > /tmp/old.sql`); the new
text is the checkout's sql/query_found.sql. For three indexed documents of a bench/corpora.py
generated corpus that carry planted copies (its copies.csv), each text runs then the checkout's
sql/query_hits.sql on its rows, as ``Index.query`` does, alternately --runs times, at the index's
default max-df and at --max-df; the hits must be equal (the script stops otherwise). Prints one
markdown row per document and max-df: the medians in ms and their ratio.
"""
from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("index")
    ap.add_argument("old_sql")
    ap.add_argument("--corpus", required=True, help="e.g. generated100000 (its folder and copies.csv in --data)")
    ap.add_argument("--data", type=Path, default=Path("/tmp/bench-data"))
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--max-df", type=int, default=3, help="a max-df below the default, also measured")
    a = ap.parse_args()

    import numpy as np

    import winnowdb
    from winnowdb.store import sqlfiles
    from winnowdb.store.stats import common_floor

    texts = {"old": Path(a.old_sql).read_text(), "new": sqlfiles.load("query_found")}
    with open(a.data / f"{a.corpus}.copies.csv", newline="") as f:
        copies = list(csv.reader(f))[1:]
    idx = winnowdb.open(a.index, read_only=True)
    reader = idx.reader
    store = reader.store
    con = store.connection
    print("| index | indexed document | max-df | old ms | new ms | new / old |\n|---|---|---|---|---|---|")
    for i in (len(copies) // 2, len(copies) // 3, 5):
        path = a.data / a.corpus / copies[i][0]
        side = reader.side(path, None)
        own = np.array(sorted(d for d in side.paths if d >= 0), dtype=np.int32)
        floor = common_floor(store)
        for max_df in (reader.max_df(None), a.max_df):
            times: dict[str, list[float]] = {"old": [], "new": []}
            hits = {}
            for _ in range(a.runs):
                for name, sql in texts.items():
                    t = time.perf_counter()
                    with store.relations(query_fingerprints={"hash": side.fingerprints["hash"]},
                                         query_docs={"doc": own}):  # read by the text since 8677cc9's next
                        found = con.execute(sql, sqlfiles.bind(sql, dict(max_df=max_df, common_floor=floor,
                                                                          exclude=side.submission))).fetchnumpy()
                    with store.relations(query_found=found):
                        hits[name] = store.rows("query_hits", top=10, exclude=side.submission, min_shared=1)
                    times[name].append(time.perf_counter() - t)
            if hits["old"] != hits["new"]:
                sys.exit(f"{path}: the two texts give different hits")
            old, new = (statistics.median(times[k]) * 1000 for k in ("old", "new"))
            print(f"| {Path(a.index).name} | {path.name} | {max_df} | {old:.1f} | {new:.1f} | {new / old:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
