"""Run the real ``winnowdb`` CLI with small batches, logging each batch once it has committed.

Used by the crash tests as the process they kill: ``python crash_child.py add DIR --db X``.
Smaller batches (``WINNOWDB_TEST_BATCH_BYTES``) give many commit points in a small corpus; the
log (``WINNOWDB_TEST_COMMIT_LOG``, one path per line, appended after ``write_batch`` returns)
says which documents the index must hold after a kill. ``WINNOWDB_TEST_HUGE_CHARS`` lowers the
huge-document threshold so larger files take the segmented, streamed path (also logged once
committed). ``WINNOWDB_TEST_PAUSE_AFTER_BATCH`` (seconds) makes the add slow. Nothing else is
changed.
"""
from __future__ import annotations

import os
import sys
import time

from winnowdb.ingest import batches, huge
from winnowdb.ingest import pipeline as indexer

indexer.BATCH_BYTES = int(os.environ.get("WINNOWDB_TEST_BATCH_BYTES", indexer.BATCH_BYTES))
if os.environ.get("WINNOWDB_TEST_HUGE_CHARS"):  # let a few files take the segmented path
    from winnowdb.ingest import segmented

    segmented.HUGE_CHARS = int(os.environ["WINNOWDB_TEST_HUGE_CHARS"])
    segmented.CHUNK_CHARS = segmented.SEGMENT_UNITS = max(segmented.HUGE_CHARS // 4, 1024)
_LOG = os.environ.get("WINNOWDB_TEST_COMMIT_LOG")
_write_batch = batches.write_batch


_PAUSE = float(os.environ.get("WINNOWDB_TEST_PAUSE_AFTER_BATCH", "0"))


def _paths(documents) -> list[str]:
    """The path column of a documents table (a dict of numpy columns, or an Arrow table)."""
    if isinstance(documents, dict):
        return [str(p) for p in documents["path"]]
    return documents.column("path").to_pylist()


def _logged_write_batch(store, documents, texts):
    _write_batch(store, documents, texts)
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as fh:
            fh.write("".join(p + "\n" for p in _paths(documents)))
    if _PAUSE:  # a slow add (as on a slow disk), so other processes can meet it mid-way
        time.sleep(_PAUSE)


batches.write_batch = _logged_write_batch  # the names add's batch writer and huge path call
huge.write_batch = _logged_write_batch

if __name__ == "__main__":
    from winnowdb.cli import main

    sys.argv = ["winnowdb", *sys.argv[1:]]
    main()
