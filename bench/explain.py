#!/usr/bin/env python3
"""EXPLAIN ANALYZE of the read path's main queries on one index, as the given checkout runs them.

usage:
    PYTHONPATH=CHECKOUT python bench/explain.py --db INDEX.duckdb --doc DOC.txt --out FILE.md

For issue 20 ("record EXPLAIN ANALYZE of the main queries before and after"): run it once with
the checkout before a change on an index that checkout built, once after, and keep both files
(bench/results/explain/). The queries are that checkout's own sql/ files with their parameters
bound as the commands bind them: ``pairs.sql`` (as ``pairs --top 10``), ``query_found.sql`` and
``query_hits.sql`` (the hits of DOC, fingerprinted with the index's settings; a checkout before
the query's two statements has query_hits.sql alone) and ``index_summary.sql`` (``stats``).
Each plan is DuckDB's ``EXPLAIN ANALYZE`` text (operator timings and row counts); the wall time
of the query run alone is given beside it.
"""
from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, type=Path)
    ap.add_argument("--doc", required=True, type=Path, help="a document to query with (indexed or not)")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args()

    import winnowdb

    idx = winnowdb.open(args.db, read_only=True, create=False)  # the connection the commands use
    try:
        explain(idx, args)
    finally:
        idx.close()
    print(f"wrote {args.out}")


def explain(idx, args) -> None:
    """Write the plans of the index ``idx`` to ``args.out``."""
    import duckdb
    import numpy as np

    import winnowdb
    from winnowdb.ingest.document import fingerprint_source
    from winnowdb.store import sqlfiles
    from winnowdb.store.stats import NO_COMMON_FLOOR

    con = idx.store.connection  # (its memory limit, row groups and IN-filter threshold)
    settings = dict(con.execute("SELECT key, value FROM settings").fetchall())
    cap = con.execute("SELECT max_df FROM default_max_df").fetchall()[0][0]
    _, _, fps = fingerprint_source(args.doc.read_text(encoding="utf-8"), settings, path=str(args.doc))
    con.register("query_fingerprints", {"hash": np.asarray(fps.hash, dtype=np.int64)})
    con.register("query_docs", {"doc": np.empty(0, np.int32)})  # DOC read as a file not indexed
    meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    floor = meta.get("common_hashes_max_df")
    # as stats.common_floor: the max-df common_hashes holds the hashes above (none kept: above any)
    common_floor = int(floor) if floor is not None and floor.isdigit() else NO_COMMON_FLOOR
    values = {"max_df": cap, "min_shared": 1, "new_label": None, "top": 10, "limit_rows": 10, "exclude": None,
              "min_score": None, "common_floor": common_floor}
    try:  # pairs.sql's parameters as `pairs --top 10` binds them (max_df NULL: the query's default)
        from winnowdb.analysis.pairs import pair_parameters
    except ImportError:  # a checkout before it: the index's default max-df, bound as a number
        pair_values = values
    else:
        pair_values = {**values, **pair_parameters()}
    root = Path(winnowdb.__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h", "--", "winnowdb", "sql"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    lines = [f"# EXPLAIN ANALYZE ({dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)", "",
             f"- index: {args.db} (schema version {settings.get('schema_version', '?')}; default max-df {cap})",
             f"- winnowdb {winnowdb.__version__} from {root} (winnowdb/ and sql/ last changed in {commit}); "
             f"duckdb {duckdb.__version__}",
             f"- command: `{' '.join(['python', 'bench/explain.py', *sys.argv[1:]])}`", ""]
    names = [n for n in ("pairs", "query_found", "query_hits", "index_summary")
             if (sqlfiles.sql_dir() / f"{n}.sql").is_file()]  # query_found.sql: since the query's two statements
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for name in names:
        sql = sqlfiles.load(name)
        bound = sqlfiles.bind(sql, pair_values if name == "pairs" else values)
        if name == "pairs":  # as `pairs --top 10` runs it
            sql = sqlfiles.with_limit(sql, 10)
        t = time.perf_counter()
        con.execute(sql, bound).fetchall()
        wall = time.perf_counter() - t
        plan = con.execute("EXPLAIN ANALYZE " + sql, bound).fetchall()
        text = "\n".join(str(row[-1]) for row in plan)
        lines += [f"## {name}.sql: {wall:.3f} s", "", "```", text.rstrip(), "```", ""]
        args.out.write_text("\n".join(lines))  # each plan kept as soon as it is known
        if name == "query_found":  # query_hits.sql reads its rows, as Index.query passes them
            con.register("query_found", con.execute(sql, bound).fetchnumpy())


if __name__ == "__main__":
    main()
