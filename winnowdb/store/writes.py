"""Writing an index: batches of documents bulk-loaded in one transaction each, huge documents
streamed, documents removed.

Every write is one transaction (``Store.transaction``), so an interrupted ``add`` keeps every
batch that committed and loses nothing else. Rows arrive as dicts of numpy columns (or Arrow
data) that DuckDB scans in bulk; no row is inserted one by one. Removed document ids are never
given again (the highest is remembered in the setting ``max_removed_doc``).
"""
from __future__ import annotations

from contextlib import contextmanager, nullcontext
from typing import Callable

from . import sqlfiles
from .interrupts import interrupts_allowed
from .schema import write_setting

__all__ = ["write_batch", "write_streamed", "remove_documents", "bulk_writes", "BULK_CHECKPOINT_MB",
           "REMOVED_KEY"]

#: setting that remembers the highest document id ever removed (ids are never reused)
REMOVED_KEY = "max_removed_doc"

#: how much write-ahead log a bulk write lets build up before DuckDB checkpoints it into the
#: file (DuckDB's default is 16 MB: an ``add`` of 25 MB of text checkpointed three times on the
#: way, re-compressing and rewriting blocks each time; see ``bulk_writes``)
BULK_CHECKPOINT_MB = 256


@contextmanager
def bulk_writes(store):
    """Within the block, commits checkpoint less often (every ``BULK_CHECKPOINT_MB`` of log).

    Every commit is still durable: DuckDB writes it to the write-ahead log before COMMIT
    returns, and replays the log when the file is next opened, so a crash or kill loses
    nothing committed. The data is moved into the file once, at the next checkpoint (at the
    latest when the index is closed), instead of at every 16 MB. The previous threshold is
    restored when the block is left, whatever ends it.
    """
    if store.read_only or store.is_memory:
        yield
        return
    with store.setting_for_block("checkpoint_threshold", f"{int(BULK_CHECKPOINT_MB)}MB"):
        yield


def _doc_ids(docs) -> dict:
    """A one-column table of document ids, for DuckDB to scan."""
    import numpy as np

    return {"doc": np.asarray(docs, dtype=np.int32)}


def _delete(store, docs: list[int], *, rewritten: bool = False) -> None:
    """Delete documents inside the caller's transaction: their fingerprints, texts, rows of
    the clusters snapshot, and the documents; the highest id removed is remembered
    (``next_doc_id`` never gives it again). ``rewritten``: the same documents are written
    again under the same ids (``upgrade``), so their clusters rows stay and no id is retired."""
    con = store.connection
    with sqlfiles.registered(con, gone_docs=_doc_ids(docs)):
        con.execute(sqlfiles.load("delete_documents"))
        if rewritten:
            return
        if "clusters" in store.table_names():
            con.execute(sqlfiles.load("delete_cluster_rows"))
    top = max(int(d) for d in docs) if len(docs) else 0
    old = con.execute(sqlfiles.load("max_removed_doc")).fetchall()[0][0]
    if old is None or top > int(old):
        write_setting(con, REMOVED_KEY, str(top))


def write_batch(store, documents, texts, fingerprints, replaced: list[int], *, same_ids: bool = False) -> None:
    """Replace ``replaced`` doc ids and insert a batch in one transaction. ``same_ids``: the
    batch rewrites those very documents under their own ids (``upgrade``: see ``_delete``).

    The tables are Arrow tables or dicts of equal-length numpy arrays (column name -> array,
    in the table's column order); DuckDB scans either in bulk. (Building Arrow arrays makes
    pyarrow import pandas, which costs a quarter of a second of every ``add``.)"""
    with store.transaction() as con:
        if replaced:
            _delete(store, replaced, rewritten=same_ids)
        with sqlfiles.registered(con, new_documents=documents, new_texts=texts, new_fingerprints=fingerprints):
            for name in ("insert_documents", "insert_texts", "insert_fingerprints"):
                con.execute(sqlfiles.load(name))
    store.refresh_settings()


def write_streamed(store, fingerprint_batches, finish: Callable[[], tuple], replaced: list[int], *,
                   memory_limit_mb: int | None = None) -> None:
    """Store one huge document in one transaction without holding all its fingerprints.

    ``fingerprint_batches`` is an Arrow ``RecordBatchReader`` of fingerprint rows, inserted by
    one streaming INSERT (DuckDB then writes row groups out as they fill instead of keeping
    the whole transaction in memory); then ``finish()`` returns the (documents, texts)
    tables, inserted last. Either everything commits or nothing does. Ctrl-C stays possible
    while the fingerprints stream in, even inside ``deferred_interrupt()``.

    ``memory_limit_mb`` caps DuckDB's memory for this transaction (by default DuckDB keeps up
    to 80% of RAM of written data cached); too small a cap raises DuckDB's out-of-memory error
    and changes nothing.
    """
    cap = (store.setting_for_block("memory_limit", f"{int(memory_limit_mb)}MB", reset=True)
           if memory_limit_mb else nullcontext())
    with cap:
        with store.transaction() as con:
            if replaced:
                _delete(store, replaced)
            with interrupts_allowed():
                with sqlfiles.registered(con, new_fingerprints=fingerprint_batches):
                    con.execute(sqlfiles.load("insert_fingerprints"))
            documents, texts = finish()
            with sqlfiles.registered(con, new_documents=documents, new_texts=texts):
                con.execute(sqlfiles.load("insert_documents"))
                con.execute(sqlfiles.load("insert_texts"))
    store.refresh_settings()


def remove_documents(store, docs: list[int]) -> None:
    """Delete documents (their texts, fingerprints and clusters rows) in one transaction."""
    if not docs:
        return
    with store.transaction():
        _delete(store, docs)
    store.refresh_settings()
