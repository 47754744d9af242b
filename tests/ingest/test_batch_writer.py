"""add's writer thread (``ingest.batches.BatchWriter``) on a real index: batches queue behind a
long commit instead of holding the main thread, up to ``queue_bytes``; they commit in order; a
failed commit drops the batches behind it and its error reaches the main thread."""
from __future__ import annotations

import datetime as dt
import threading

import duckdb
import pytest

from winnowdb.index import open_index
from winnowdb.ingest import batches
from winnowdb.ingest.batches import AddSummary, Batch, BatchWriter
from winnowdb.store.runs import FingerprintRun


def batch_of(first_doc: int, n: int, *, size: int = 100, bad: bool = False) -> Batch:
    """A batch of ``n`` documents (ids from ``first_doc``) without fingerprint rows; ``bad``: its
    last document has no path, which the documents_pending table refuses."""
    batch = Batch()
    for doc in range(first_doc, first_doc + n):
        path = None if bad and doc == first_doc + n - 1 else f"/corpus/doc{doc}.txt"
        batch.docs.append(dict(
            doc=doc, path=path, submission=f"doc{doc}", label="", kind="document", normalizer="prose",
            content_hash="0" * 32, normalized_hash="0" * 32, encoding="utf-8", bytes=size, chars=size,
            units=size, fingerprints=0, simhash=0, added_at=dt.datetime(2026, 11, 27), sub=doc, hashes=0,
            replaces=None, mtime_ns=0, ctime_ns=0))
        batch.texts.append("x" * size)
        batch.bytes += size
    return batch


@pytest.fixture
def store(tmp_path):
    index = open_index(tmp_path / "writer.duckdb")
    yield index.store
    index.close()


def pending_docs(store) -> list[int]:
    return [r[0] for r in store.connection.execute("SELECT doc FROM documents_pending ORDER BY doc").fetchall()]


class HeldCommits:
    """Wraps (never replaces) the writer's ``write_batch``: each commit waits until released."""

    def __init__(self, monkeypatch) -> None:
        self.started = threading.Semaphore(0)
        self.go = threading.Event()
        real = batches.write_batch

        def held(*args, **kwargs):
            self.started.release()
            assert self.go.wait(timeout=60), "the test never released the commit"
            return real(*args, **kwargs)

        monkeypatch.setattr(batches, "write_batch", held)


def test_batches_queue_behind_a_long_commit_and_commit_in_order(store, monkeypatch):
    held = HeldCommits(monkeypatch)
    summary = AddSummary()
    with FingerprintRun(store) as run, BatchWriter(store, summary, run) as writer:
        writer.write(batch_of(1, 3))
        assert held.started.acquire(timeout=60)  # the first commit has begun, and is held
        writer.write(batch_of(4, 2))  # queued: write() returns while the commit is held
        writer.write(batch_of(6, 4))
        assert summary.batches == 0
        held.go.set()
        writer.wait()
        assert (summary.batches, summary.added, summary.bytes) == (3, 9, 900)
    assert pending_docs(store) == list(range(1, 10))


def test_queue_bytes_bound_what_waits_for_the_writer(store, monkeypatch):
    held = HeldCommits(monkeypatch)
    summary = AddSummary()
    with FingerprintRun(store) as run, BatchWriter(store, summary, run, queue_bytes=300) as writer:
        writer.write(batch_of(1, 3))  # 300 bytes, committing (held)
        assert held.started.acquire(timeout=60)
        writer.write(batch_of(4, 3))  # 300 bytes wait: the bound
        blocked = threading.Thread(target=writer.write, args=(batch_of(7, 1),))
        blocked.start()
        blocked.join(timeout=0.5)
        assert blocked.is_alive(), "write() should wait while queue_bytes of documents wait"
        held.go.set()
        blocked.join(timeout=60)
        assert not blocked.is_alive()
        writer.wait()
    assert summary.batches == 3
    assert pending_docs(store) == list(range(1, 8))


def test_a_failed_commit_drops_the_batches_behind_it(store, monkeypatch):
    held = HeldCommits(monkeypatch)
    summary = AddSummary()
    with FingerprintRun(store) as run:
        writer = BatchWriter(store, summary, run)
        writer.write(batch_of(1, 2))
        assert held.started.acquire(timeout=60)
        writer.write(batch_of(3, 2, bad=True))
        writer.write(batch_of(5, 2))
        held.go.set()
        with pytest.raises(duckdb.ConstraintException):
            writer.wait()
        with pytest.raises(duckdb.ConstraintException):  # leaving by the error raises nothing more
            with writer:
                raise duckdb.ConstraintException("the add's own error")
    assert summary.batches == 1
    assert pending_docs(store) == [1, 2]  # the failed batch rolled back, the one after it dropped
