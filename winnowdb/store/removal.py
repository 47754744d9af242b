"""Removing documents inside a transaction: their rows deleted, their hashes' statistics kept exact.

``remove_rows`` is the one way documents leave an index (``remove``, and a changed file's older
version that ``add`` replaces), and the way ``upgrade`` drops the fingerprints of documents it
writes again. The fingerprint rows of many documents are not deleted in the transaction but
recorded for ``purge`` (their deletes would pin too much memory).

The statistics of the hashes the documents held (``stats``: ``shared_hashes``, ``common_hashes``,
``meta.distinct_hashes``) are brought up to date in the same transaction. When the documents are
ordinary and every document of their submissions, each hash loses exactly the submissions among
them that hold it: its new df is the kept one (``shared_hashes``, or 1 for a hash not kept there,
which one submission alone holds) less those, and only ``shared_hashes`` is read. Otherwise (a
submission keeps other documents, boilerplate, ``upgrade``) the df of each hash is counted again
from the stored rows. At 1,000,000 documents, removing 10,000 counted 4M hashes again in ~6 s.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import purge, sqlfiles, text_df
from .room import expect_deletes
from .schema import read_meta, write_meta
from .stats import df_of, replace_shared

if TYPE_CHECKING:
    import numpy as np

__all__ = ["remove_rows", "df_after_removal"]


def remove_rows(store, docs: np.ndarray, *, rewritten: bool = False) -> np.ndarray:
    """Delete documents inside the caller's transaction, with their fingerprints (or, where their
    deletes would pin too much memory, recorded for ``purge.purge``, which the caller runs after
    the commit) and texts, and the statistics of their hashes brought up to date. ``rewritten``:
    the same documents are written again under the same ids (``upgrade``): only their
    fingerprints go (their rows, texts and clusters rows stay). Returns the hashes of their text
    family whose ``code_text_df`` the caller's ``stats.remember_default_max_df`` counts again once
    every change of its transaction is made: none when ``rewritten``, or when they are ordinary
    and every document of their submissions (``text_df.shrink`` takes them away here)."""
    import numpy as np

    docs = np.asarray(docs, dtype=np.int32)
    text_gone = np.empty(0, np.int64)
    if docs.shape[0] == 0:
        return text_gone
    con = store.connection
    with store.relations(gone_docs={"doc": docs}):
        documents, fingerprints, text_family = store.rows("gone_document_rows")[0]
        later = not rewritten and purge.deferred(store, fingerprints)  # rows deleted after the commit
        expect_deletes(store, "fingerprints", 0 if later else fingerprints)
        if not rewritten:
            for table in ("documents", "document_texts", "clusters"):
                expect_deletes(store, table, documents)
            expect_deletes(store, "code_text_hashes", text_family)
        kinds = store.columns("gone_document_kinds")
        gone = store.columns("gone_hash_submissions")
        touched = gone["hash"].astype(np.int64)
        ordinary = kinds["doc"].shape[0] == docs.shape[0] and bool((kinds["kind"] == "document").all())
        whole = not rewritten and ordinary and bool(store.value("gone_documents_alone"))
        text_delta = text_df.counts(store, docs) if not rewritten and text_family else None
        if text_delta is not None and not whole:
            text_gone, text_delta = text_delta["hash"], None  # counted again by the caller
        if ordinary:
            before = touched.shape[0]  # an ordinary document's hashes: each stored for one, at least
        else:  # boilerplate among them: its hashes may be in no ordinary document
            before = df_of(store, touched)[0].shape[0]
        if text_delta is not None:
            text_df.shrink(store, text_delta)
        if whole:  # read before the deletes, while shared_hashes holds the df before the removal
            after_h, after_df = df_after_removal(store, touched, gone["subs"].astype(np.int64))
        if later:
            purge.record(store)
        else:
            con.execute(sqlfiles.load("delete_fingerprints_of"))
        if not rewritten:
            con.execute(sqlfiles.load("delete_documents"))
            if "clusters" in store.table_names():
                con.execute(sqlfiles.load("delete_cluster_rows"))
            top = int(docs.max())
            old = con.execute(sqlfiles.load("max_removed_doc")).fetchall()[0][0]
            if old is None or top > int(old):
                write_meta(con, "max_removed_doc", top)
    if not whole:
        after_h, after_df = df_of(store, touched)
    if touched.shape[0]:
        replace_shared(store, touched, after_h, after_df, int(touched.min()), int(touched.max()))
        meta = read_meta(con)
        write_meta(con, "distinct_hashes", int(meta.get("distinct_hashes", 0)) + int(after_h.shape[0] - before))
    if (kinds["kind"] == "boilerplate").any():
        expect_deletes(store, "boilerplate_hashes", None)
        con.execute(sqlfiles.load("boilerplate_hashes_rebuild"))
    return text_gone


def df_after_removal(store, hashes: np.ndarray, subs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(hash, df) of ``hashes`` (sorted, distinct) once ``subs`` submissions of each, every
    document of which is removed, are gone: the df ``shared_hashes`` keeps (1 where it keeps
    none) less ``subs``; hashes left in no submission are left out. Call it before the removal
    changes ``shared_hashes``."""
    import numpy as np

    if hashes.shape[0] == 0:
        return hashes, np.empty(0, np.int64)
    with store.relations(hashes_wanted={"hash": hashes}):
        kept = store.columns("shared_df_of", low=int(hashes[0]), high=int(hashes[-1]))
    df = np.ones(hashes.shape[0], dtype=np.int64)
    df[np.searchsorted(hashes, kept["hash"].astype(np.int64))] = kept["df"]
    df -= subs
    left = df > 0
    return hashes[left], df[left]
