"""``add``'s batches: the rows of up to 8,192 documents, and the thread that commits them.

A ``Batch`` collects finished documents (their rows, texts and fingerprints) and turns them into
numpy column tables; a ``BatchWriter`` commits batches one at a time, in order, in a background
thread, each batch one transaction (``store.writes.write_batch``: the documents and their texts,
pending, and the code documents' text family, whose rows count once the documents are indexed),
and hands the batch's fingerprint rows (grouped by hash bucket where they were fingerprinted,
``rows``) to the add's ``store.runs.FingerprintRun``, which stores them all at the end, ordered
by hash. So ``add``'s main thread keeps taking the workers' results while DuckDB writes.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ..store.writes import write_batch
from .read import Skipped
from .rows import RowsPiece, merge_rows, piece_rows, rows_piece

__all__ = ["AddSummary", "Batch", "BatchWriter", "DOCUMENT_COLUMNS", "QUEUE_BYTES"]

#: the columns of a pending document row, in the documents_pending table's order, with their dtypes
#: (mtime_ns and ctime_ns 0: not recorded, stored as NULL)
DOCUMENT_COLUMNS = (("doc", np.int32), ("path", object), ("submission", object), ("label", object),
                    ("kind", object), ("normalizer", object), ("content_hash", object),
                    ("normalized_hash", object), ("encoding", object), ("bytes", np.int64),
                    ("chars", np.int64), ("units", np.int64), ("fingerprints", np.int64),
                    ("simhash", np.int64), ("added_at", "datetime64[us]"), ("sub", np.int32),
                    ("hashes", np.int64), ("replaces", object), ("mtime_ns", np.int64),
                    ("ctime_ns", np.int64))


@dataclass
class AddSummary:
    """What one ``add`` did."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    fingerprints: int = 0
    bytes: int = 0
    batches: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    merged_seconds: float = 0.0  # the merge of the fingerprint runs this add made due (0: none)
    merge_interrupted: bool = False  # Ctrl-C stopped that merge: every document is indexed

    @property
    def saved(self) -> int:
        return self.added + self.updated


#: bytes of read documents (files' sizes) that may wait for the writer thread besides the batch it
#: commits (a full batch, ``pipeline.BATCH_BYTES``): enough to ride out a slow commit, such as a
#: checkpoint of DuckDB's write-ahead log (~1.3 s in a 100,000-document add of batches of 2,000,
#: when their texts passed ``store.writes.BULK_CHECKPOINT_MB``), without the main thread stopping
#: to take the workers' results (bench/RESULTS.md, Ingest)
QUEUE_BYTES = 32 * 1024 * 1024


class BatchWriter:
    """Commits ``add``'s batches in a background thread, one at a time and in order, so the main
    thread keeps taking the workers' results while DuckDB writes (a worker blocked on sending a
    result to a busy main thread stalls). DuckDB releases the GIL while it executes. Batches
    queue for the thread up to ``QUEUE_BYTES`` of documents (at least one), so a long commit
    holds the main thread back only when that much is read meanwhile.

    Reliability (issue 4): each batch is one transaction, counted in ``summary`` by the writer
    right after its commit; its fingerprints then join ``run``. Ctrl-C is delivered to the main
    thread only, so it never lands inside a commit; a Ctrl-C while waiting for the writer waits
    out the commit under way, drops the batches that have not begun (read, not committed: the
    next ``add`` reads them again), then ends ``add`` as interrupted. After a failed commit the
    batches behind it are dropped, and the error is raised in the main thread by the next
    ``write`` or ``wait``. As a context manager, leaving normally waits for every batch; leaving
    by an exception drops those that have not begun and waits for the one committing (its error,
    if any, is raised unless another exception is already on its way).
    """

    def __init__(self, store, summary: AddSummary, run, *, queue_bytes: int = QUEUE_BYTES) -> None:
        import threading

        self.store = store
        self.summary = summary
        self.run = run
        self.queue_bytes = queue_bytes
        self._queue: deque[Batch] = deque()  # batches not begun, in order
        self._busy = False  # the thread is committing a batch
        self._closed = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None  # of a failed commit, until raised
        self._failed = False  # a commit failed: no batch after it is committed

    def write(self, batch: "Batch") -> None:
        """Commit ``batch`` in the background, after those before it (raises the error of a
        failed one); blocks while ``queue_bytes`` of documents wait already."""
        import threading

        self._raise()
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="winnowdb-writer", daemon=True)
                self._thread.start()
            self._wait_until(lambda: not self._queue or self._failed
                             or sum(b.bytes for b in self._queue) + batch.bytes <= self.queue_bytes)
            self._queue.append(batch)
            self._cond.notify_all()
        self._raise()

    def _loop(self) -> None:
        """The writer thread: commit queued batches in order until closed."""
        cond = self._cond
        while True:
            with cond:
                while not self._queue and not self._closed:
                    cond.wait()
                if not self._queue:
                    return
                batch = self._queue.popleft()
                self._busy = True
            try:
                if not self._failed:
                    self._commit(batch)
            finally:
                with cond:
                    self._busy = False
                    cond.notify_all()

    def _commit(self, batch: "Batch") -> None:
        try:
            docs, texts = batch.tables()
            write_batch(self.store, docs, texts, batch.text_family())
            fingerprints, bounds = batch.fingerprint_rows()
            self.run.add_bucketed(fingerprints, bounds)
            summary = self.summary
            summary.batches += 1
            for d in batch.docs:
                if d["replaces"] is None:
                    summary.added += 1
                else:
                    summary.updated += 1
            summary.fingerprints += len(fingerprints["hash"])
            summary.bytes += batch.bytes
        except BaseException as exc:  # raised again in the main thread by write() or wait()
            self._error = exc
            self._failed = True

    def _wait_until(self, done) -> None:
        """Wait (holding the condition) until ``done()``. Ctrl-C drops the batches not begun and
        waits out the commit under way (a second Ctrl-C too), then is raised."""
        interrupted = False
        while not done():
            try:
                self._cond.wait()
            except KeyboardInterrupt:  # the commit goes on regardless: wait for it, then stop
                interrupted = True
                self._queue.clear()
                done = self._idle
        if interrupted:
            raise KeyboardInterrupt

    def _idle(self) -> bool:
        return not self._queue and not self._busy

    def _raise(self) -> None:
        error, self._error = self._error, None
        if error is not None:
            with self._cond:
                self._queue.clear()
            raise error

    def wait(self) -> None:
        """Block until every batch written is committed (or one failed: then raise its error)."""
        with self._cond:
            self._wait_until(self._idle)
        self._raise()

    def _stop(self) -> None:
        """End the writer thread (idle by now: it leaves its loop at once)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def __enter__(self) -> "BatchWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self.wait()
                return
            with self._cond:
                self._queue.clear()
            try:
                self.wait()
            except BaseException:  # the exception already on its way matters more
                pass
        finally:
            self._stop()


class Batch:
    """Finished documents waiting to be written together: their rows and texts, and their
    fingerprint rows (the ``rows.RowsPiece`` of each chunk they came in, and the id given to each
    of its documents that is in this batch)."""

    def __init__(self) -> None:
        self.docs: list[dict] = []
        self.texts: list[str] = []
        self.pieces: dict[int, tuple[RowsPiece, np.ndarray]] = {}  # id(piece) -> (piece, ids by local)
        self.text_hashes: list[tuple[int, np.ndarray]] = []  # (doc, its code text family's hashes)
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.docs)

    def add_rows(self, piece: RowsPiece, local: int, doc: int) -> None:
        """Document ``local`` of ``piece`` is document ``doc`` of this batch: its rows are stored."""
        entry = self.pieces.get(id(piece))
        if entry is None:
            entry = self.pieces[id(piece)] = (piece, np.full(piece.docs, -1, dtype=np.int32))
        entry[1][local] = doc

    def tables(self) -> tuple[dict, dict]:
        """The batch as (documents_pending, document_texts) column dicts of numpy arrays, in
        table column order, for one bulk INSERT each."""
        documents = {key: np.array([d[key] for d in self.docs], dtype=dtype) for key, dtype in DOCUMENT_COLUMNS}
        texts = {"doc": documents["doc"], "text": np.array(self.texts, dtype=object)}
        return documents, texts

    def text_family(self) -> dict | None:
        """The code documents' text family as code_text_hashes columns (hash, doc), or None."""
        if not self.text_hashes:
            return None
        return {"hash": np.concatenate([h for _, h in self.text_hashes]).astype(np.int64),
                "doc": np.repeat(np.array([d for d, _ in self.text_hashes], dtype=np.int32),
                                 [len(h) for _, h in self.text_hashes])}

    def fingerprint_rows(self) -> tuple[dict, np.ndarray]:
        """The batch's fingerprint rows as numpy columns (``store.runs.COLUMNS`` and ``first``)
        ordered by hash bucket, and the buckets' bounds."""
        if not self.pieces:
            return piece_rows(rows_piece([], []), np.empty(0, np.int32))
        return merge_rows([piece_rows(piece, ids) for piece, ids in self.pieces.values()])
