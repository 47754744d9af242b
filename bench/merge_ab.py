#!/usr/bin/env python3
"""One timed merge of the fingerprint runs of a copy of an index, by the winnowdb of a checkout.

usage:
    python bench/merge_ab.py TREE INDEX partial|full

INDEX is copied to /tmp/winnowdb-merge-copy.duckdb; TREE's ``merge.merge`` then rewrites the copy's
newest runs (partial: ``first_run=1``) or all of them (full). Prints one JSON line: seconds, the
runs before and after, the file's size. Alternate trees in a shell loop for an A/B (RESULTS.md).
"""
import json
import os
import shutil
import sys
import time

tree, src, kind = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, tree)
import winnowdb  # noqa: E402
from winnowdb.store import merge  # noqa: E402

copy = "/tmp/winnowdb-merge-copy.duckdb"
for p in (copy, copy + ".wal"):
    if os.path.exists(p):
        os.remove(p)
shutil.copyfile(src, copy)
idx = winnowdb.open(copy)
runs = merge.recorded_run_docs(idx.store.connection)
t = time.perf_counter()
merge.merge(idx.store, first_run=1 if kind == "partial" else 0)
took = time.perf_counter() - t
after = merge.recorded_run_docs(idx.store.connection)
idx.close()
print(json.dumps({"tree": tree, "kind": kind, "seconds": round(took, 2), "runs_before": runs, "runs_after": after,
                  "file_gb": round(os.path.getsize(copy) / 1e9, 3)}))
os.remove(copy)
