"""Writing an index: an add's documents committed batch by batch, removals, bulk-write settings.

An ``add`` commits each batch of documents (their rows and original texts) to
``documents_pending`` in one transaction (``write_batch``), so an interrupted ``add`` keeps every
batch that committed; their fingerprints are stored at the end, ordered by hash, a bucket per
transaction, and one more moves the documents into ``documents`` (``runs.FingerprintRun.finish``). Rows
arrive as dicts of numpy columns (or Arrow data) that DuckDB scans in bulk; no row is inserted one
by one. ``remove_documents`` deletes documents with their fingerprints and keeps the statistics
exact (``stats``). Removed document ids are never given again (the highest is remembered in meta).
"""
from __future__ import annotations

from contextlib import contextmanager

from . import purge, removal, sqlfiles, stats
from .limits import memory_bytes
from .room import room_for_deletes

__all__ = ["write_batch", "record_times", "remove_documents", "bulk_writes", "BULK_CHECKPOINT_MB",
           "BULK_MEMORY_MB", "VALUE_MEMORY_FACTOR", "VALUE_MEMORY_MARGIN_MB"]

#: how much write-ahead log a bulk write lets build up before DuckDB checkpoints it into the
#: file (DuckDB's default is 16 MB: an ``add`` of 25 MB of text checkpointed three times on the
#: way, re-compressing and rewriting blocks each time; see ``bulk_writes``). Not more: the
#: checkpoint runs in the commit that passes it, and an ``add``'s writer thread should finish it
#: while the workers still read (at 256 MB, 100,000 documents' texts, 270 MB, were checkpointed
#: in one commit of 1-2 s near the end of reading, which the add then waited for)
BULK_CHECKPOINT_MB = 128
#: the most memory DuckDB's buffer manager may keep during a bulk write (its default is 80% of
#: the machine's memory, filled with blocks just written, which a write never reads again: an add
#: of 100,000 documents kept 1 GB of them); what does not fit is evicted, or spilled to disk.
#: 100,000 documents: peak 940 MB at 384, 1,077 MB at 512, each a few seconds slower than the
#: last (the statistics look the add's hash ranges up again, from disk once evicted; bench/RESULTS.md)
BULK_MEMORY_MB = 384

#: how many times its size in memory DuckDB may need to store one value (a huge document's text,
#: as UTF-8: up to twice the bytes of a file in a legacy encoding; DuckDB held two blocks of its
#: size when it stored a 200 MB text), and a margin for the rest
VALUE_MEMORY_FACTOR = 4
VALUE_MEMORY_MARGIN_MB = 128


@contextmanager
def bulk_writes(store, *, largest_value: int = 0):
    """Within the block, commits checkpoint less often (every ``BULK_CHECKPOINT_MB`` of log),
    and DuckDB keeps at most ``BULK_MEMORY_MB`` of blocks in memory, or enough for the largest
    value the block writes (``largest_value`` bytes: a file an add stores the text of), and
    never more than it was allowed before.

    Every commit is still durable: DuckDB writes it to the write-ahead log before COMMIT
    returns, and replays the log when the file is next opened, so a crash or kill loses
    nothing committed. The data is moved into the file once, at the next checkpoint (at the
    latest when the index is closed), instead of at every 16 MB. When the block is left, whatever
    ends it, the threshold is restored and the memory limit reset to DuckDB's default (a limit
    read back is rounded, so restoring it would drift).
    """
    if store.read_only or store.is_memory:
        yield
        return
    limit = max(int(BULK_MEMORY_MB) * 2**20,
                VALUE_MEMORY_FACTOR * int(largest_value) + int(VALUE_MEMORY_MARGIN_MB) * 2**20)
    now = memory_bytes(str(store.value("memory_limit_now")))
    if now is not None:
        limit = min(limit, now)
    with store.setting_for_block("checkpoint_threshold", f"{int(BULK_CHECKPOINT_MB)}MB"), \
            store.setting_for_block("memory_limit", f"{limit}B", reset=True):
        yield


def write_batch(store, documents, texts, text_family=None) -> None:
    """Commit a batch of an add's documents (their ``documents_pending`` rows, with the doc id
    each replaces, their texts, and the code documents' text family: ``code_text_hashes`` rows,
    or None) in one transaction.

    The tables are Arrow tables or dicts of equal-length numpy arrays (column name -> array,
    in the table's column order); DuckDB scans either in bulk. (Building Arrow arrays makes
    pyarrow import pandas, which costs a quarter of a second of every ``add``.)"""
    with store.transaction() as con:
        with sqlfiles.registered(con, new_documents=documents, new_texts=texts):
            con.execute(sqlfiles.load("insert_pending_documents"))
            con.execute(sqlfiles.load("insert_texts"))
        if text_family is not None:
            with sqlfiles.registered(con, new_code_text=text_family):
                con.execute(sqlfiles.load("insert_code_text_hashes"))


def record_times(store, times: dict[int, tuple[int, int]]) -> None:
    """Record the files' times of documents (doc -> (mtime_ns, ctime_ns), ns since the epoch; 0
    for NULL, not recorded) in one transaction (``ingest.unchanged``)."""
    if not times:
        return
    import numpy as np

    pairs = np.array(list(times.values()), dtype=np.int64).reshape(-1, 2)
    columns = {"doc": np.fromiter(times, dtype=np.int32, count=len(times)),
               "mtime_ns": np.ascontiguousarray(pairs[:, 0]), "ctime_ns": np.ascontiguousarray(pairs[:, 1])}
    with store.transaction() as con:
        with sqlfiles.registered(con, new_times=columns):
            con.execute(sqlfiles.load("documents_mtime_update"))


def remove_documents(store, docs: list[int]) -> None:
    """Delete documents (their texts, fingerprints and clusters rows) in one transaction, the
    statistics of their hashes counted again. The fingerprint rows of many documents are deleted
    after that commit, a span of hash buckets at a time (``purge``), with any an earlier removal
    that was stopped left."""
    if docs:
        import numpy as np

        with room_for_deletes(store), store.transaction():
            text_gone = removal.remove_rows(store, np.asarray(docs, dtype=np.int32))
            stats.remember_default_max_df(store, text_gone)
        store.refresh_settings()
    purge.purge(store)
