#!/usr/bin/env python3
"""What the UNIQUE index on ``documents.path`` costs when ``add`` indexes its documents (issue 19).

usage:
    python bench/unique_path_commit.py [--docs 100000] [--folder /tmp]

The step ``runs.index_pending`` moves an add's documents from ``documents_pending`` into
``documents`` in one transaction. This builds two tables shaped like those (doc, path, one more
column), fills the first with ``--docs`` rows (paths like the generated corpus's), checkpoints,
then times that move: INSERT ... SELECT ... ORDER BY doc, DELETE, COMMIT; with the schema's
constraints (PRIMARY KEY on doc, UNIQUE on path), with the primary key alone, and with none.
Each in a fresh DuckDB file in --folder.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--folder", type=Path, default=Path("/tmp"))
    args = ap.parse_args()
    import duckdb
    import numpy as np

    n = args.docs
    paths = np.array([f"/tmp/bench-data/generated{n}/part{i % 100:03d}/document_{i:07d}.txt" for i in range(n)],
                     dtype=object)
    print(f"moving {n:,} documents in one transaction (duckdb {duckdb.__version__})")
    print("| constraints | INSERT + DELETE s | COMMIT s |\n|---|---|---|")
    for variant, (doc_key, path_key) in {"PRIMARY KEY (doc), UNIQUE (path)": ("PRIMARY KEY", "UNIQUE"),
                                         "PRIMARY KEY (doc)": ("PRIMARY KEY", ""), "none": ("", "")}.items():
        db = args.folder / f"unique-path-{doc_key[:2]}{path_key[:2]}.duckdb"
        for suffix in ("", ".wal"):
            if os.path.exists(f"{db}{suffix}"):
                os.unlink(f"{db}{suffix}")
        con = duckdb.connect(str(db))
        for table in ("moved", "pending"):
            con.execute(f"CREATE TABLE {table} (doc INTEGER NOT NULL {doc_key}, path VARCHAR NOT NULL {path_key}, "
                        "x BIGINT)")
        con.register("source", {"doc": np.arange(n, dtype=np.int32), "path": paths, "x": np.arange(n)})
        con.execute("INSERT INTO pending SELECT * FROM source")
        con.execute("CHECKPOINT")
        t0 = time.perf_counter()
        con.execute("BEGIN")
        con.execute("INSERT INTO moved SELECT * FROM pending ORDER BY doc")
        con.execute("DELETE FROM pending")
        t1 = time.perf_counter()
        con.execute("COMMIT")
        t2 = time.perf_counter()
        print(f"| {variant} | {t1 - t0:.3f} | {t2 - t1:.3f} |")
        con.close()
        for suffix in ("", ".wal"):
            if os.path.exists(f"{db}{suffix}"):
                os.unlink(f"{db}{suffix}")


if __name__ == "__main__":
    main()
