"""A chunk's fingerprint rows grouped by bucket where they are fingerprinted (ingest/rows.py).

``rows_piece`` / ``piece_rows`` / ``merge_rows`` against the plain construction (every document's
rows with its id, filtered, stably sorted by bucket), and ``add`` with batches that end inside a
chunk (a chunk's documents committed in two or more batches) storing the index one batch per
chunk stores.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import winnowdb
from winnowdb.fingerprint.winnow import Fingerprints
from winnowdb.ingest import pipeline
from winnowdb.ingest.rows import merge_rows, piece_rows, rows_piece
from winnowdb.store.buckets import BUCKETS, bucket_of

SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"
NAMES = ("hash", "doc", "pos", "first")


def _doc(rng, n: int) -> tuple[Fingerprints, np.ndarray]:
    h = rng.integers(-2**63, 2**63 - 1, size=n, dtype=np.int64)
    h[rng.random(n) < 0.2] = -2**62  # repeated hashes, all in one bucket
    pos = np.sort(rng.choice(10 * n + 1, size=n, replace=False)).astype(np.int64)
    first = rng.random(n) < 0.7
    return Fingerprints(hash=h, pos=pos, start=pos * 2, stop=pos * 2 + 5), first


def _reference(docs, ids) -> tuple[dict, np.ndarray]:
    cols = {name: [] for name in NAMES}
    for (f, first), doc in zip(docs, ids):
        if doc < 0:
            continue
        for name, values in zip(NAMES, (f.hash, np.full(len(f), doc), f.pos, first)):
            cols[name].append(values)
    out = {name: np.concatenate(v) if v else np.empty(0) for name, v in cols.items()}
    part = bucket_of(out["hash"].astype(np.int64))
    order = np.argsort(part, kind="stable")
    return {k: v[order] for k, v in out.items()}, np.searchsorted(part[order], np.arange(BUCKETS + 1))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.lists(st.integers(0, 300), max_size=6), min_size=1, max_size=4), seed=st.integers(0, 99),
       data=st.data())
def test_pieces_give_every_documents_rows_by_bucket(sizes, seed, data):
    rng = np.random.default_rng(seed)
    chunks = [[_doc(rng, n) for n in chunk] for chunk in sizes]
    parts, all_docs, all_ids, next_id = [], [], [], 0
    for chunk in chunks:
        piece = rows_piece([f for f, _ in chunk], [m for _, m in chunk])
        assert piece.docs == len(chunk)
        ids = np.full(len(chunk), -1, dtype=np.int32)
        for j in range(len(chunk)):
            if data.draw(st.booleans()):  # in this batch, or in another one
                ids[j] = next_id
                next_id += 1
        parts.append(piece_rows(piece, ids))
        all_docs += chunk
        all_ids += ids.tolist()
    got, bounds = merge_rows(parts)
    want, want_bounds = _reference(all_docs, all_ids)
    assert np.array_equal(bounds, want_bounds)
    for name in NAMES:
        assert np.array_equal(got[name], want[name]), name
    assert got["doc"].dtype == np.int32 and got["pos"].dtype == np.int32 and got["first"].dtype == np.bool_


def _index(db: Path) -> dict:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: con.execute(f"SELECT * EXCLUDE (added_at) FROM {t} ORDER BY ALL" if t == "documents"
                               else f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in ("fingerprints", "documents", "shared_hashes", "document_texts")}
    finally:
        con.close()


def test_batches_ending_inside_chunks_store_the_same_index(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE, corpus)
    got = {}
    for name, batch_docs in (("default", pipeline.BATCH_DOCS), ("small", 3)):
        monkeypatch.setattr(pipeline, "BATCH_DOCS", batch_docs)  # chunks are of 64 files
        db = tmp_path / f"{name}.duckdb"
        with winnowdb.open(db) as idx:
            summary = idx.add([corpus], jobs=1)
        assert summary.batches >= (1 if name == "default" else 4)
        got[name] = _index(db)
    assert got["default"]["fingerprints"] and got["default"] == got["small"]
