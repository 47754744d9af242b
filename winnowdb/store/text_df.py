"""The text family's document frequencies (``code_text_df``), kept by every write of documents.

A hash's df is the number of submissions whose ordinary documents hold it in their text family
(``code_text_hashes``); a hash that a boilerplate document holds has no row
(``sql/code_text_df_counted.sql``). A write changes the df of its own documents' hashes alone:
* an add whose new documents are all ordinary and in submissions new to the index, replacing
  none, adds to each of their hashes the number of their submissions that hold it (``grow``: no
  row of an older document is read but a boilerplate document's);
* a removal of ordinary documents that are every document of their submissions takes that
  number away (``shrink``);
* any other write counts its documents' hashes again from the rows (``recount``: one filtered
  pass over the text family's rows, which are not stored by hash), or the whole table when they
  are ``RECOUNT_SHARE`` of its hashes or more (``schema.fill_text_df``).
Every function runs inside the caller's transaction.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import sqlfiles
from .room import expect_deletes
from .schema import fill_text_df

if TYPE_CHECKING:
    import numpy as np

__all__ = ["RECOUNT_SHARE", "counts", "grow", "shrink", "recount"]

#: a write whose documents' text family holds at least this share of the hashes ``code_text_df``
#: keeps counts the whole table again (one pass over the rows) instead of those hashes
RECOUNT_SHARE = 0.25


def counts(store, docs: np.ndarray) -> dict:
    """The distinct hashes of the text family of the indexed documents ``docs`` (columns hash,
    n: how many of their submissions hold it), read by the documents' id range."""
    import numpy as np

    docs = np.asarray(docs, dtype=np.int32)
    if docs.shape[0] == 0:
        return {"hash": np.empty(0, np.int64), "n": np.empty(0, np.int64)}
    with store.relations(text_docs={"doc": docs}):
        got = store.columns("text_family_counts_of", low=int(docs.min()), high=int(docs.max()))
    return {"hash": got["hash"].astype(np.int64), "n": got["n"].astype(np.int64)}


def grow(store, delta: dict) -> None:
    """New documents, all ordinary and in submissions new to the index, now hold ``delta``'s
    hashes (``counts`` of them): their df grows by ``n``; a hash not kept yet gets a row, unless
    a boilerplate document holds it."""
    if delta["hash"].shape[0] == 0:
        return
    expect_deletes(store, "code_text_df", int(delta["hash"].shape[0]))  # an update deletes the old rows
    with store.relations(text_df_delta=delta):
        store.connection.execute(sqlfiles.load("code_text_df_grow"))
        store.connection.execute(sqlfiles.load("code_text_df_insert_new"))


def shrink(store, delta: dict) -> None:
    """Ordinary documents that were every document of their submissions, and held ``delta``'s
    hashes (``counts`` of them), are gone: their df falls by ``n``, and a hash left in no
    submission loses its row."""
    if delta["hash"].shape[0] == 0:
        return
    expect_deletes(store, "code_text_df", int(delta["hash"].shape[0]))
    with store.relations(text_df_delta=delta):
        store.connection.execute(sqlfiles.load("code_text_df_shrink"))
        store.connection.execute(sqlfiles.load("code_text_df_delete_empty"))


def recount(store, hashes: np.ndarray | None) -> None:
    """Count ``code_text_df`` again for ``hashes`` (the hashes of the documents a write added,
    replaced or removed), or whole when they are None or ``RECOUNT_SHARE`` of the table or more."""
    con = store.connection
    if hashes is not None and hashes.shape[0] == 0:
        return
    kept = int(store.value("code_text_df_rows")) if hashes is not None else 0
    if hashes is None or hashes.shape[0] >= RECOUNT_SHARE * kept:
        expect_deletes(store, "code_text_df", None)  # counted again whole
        fill_text_df(con)
        return
    expect_deletes(store, "code_text_df", int(hashes.shape[0]))
    with store.relations(text_df_hashes={"hash": hashes}):
        con.execute(sqlfiles.load("code_text_df_delete_of"))
        con.execute(f"INSERT INTO code_text_df {sqlfiles.load('code_text_df_counted_of')}")
