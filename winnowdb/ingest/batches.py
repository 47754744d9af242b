"""``add``'s batches: the rows of a few megabytes of documents, and the thread that commits them.

A ``Batch`` collects finished documents (their rows, texts and fingerprints) and turns them into
numpy column tables for one bulk INSERT each; a ``BatchWriter`` commits batches one at a time, in
order, in a background thread, each batch one transaction (``store.writes.write_batch``), so ``add``'s
main thread keeps taking the workers' results while DuckDB writes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..store.writes import write_batch
from .read import Skipped

__all__ = ["AddSummary", "Batch", "BatchWriter"]


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

    @property
    def saved(self) -> int:
        return self.added + self.updated


class BatchWriter:
    """Commits ``add``'s batches in a background thread, one at a time and in order, so the main
    thread keeps taking the workers' results while DuckDB writes (a worker blocked on sending a
    result to a busy main thread stalls). DuckDB releases the GIL while it executes.

    Reliability (issue 4): each batch is one transaction, counted in ``summary`` by the writer
    right after its commit. Ctrl-C is delivered to the main thread only, so it never lands inside
    a commit; a Ctrl-C while waiting for a commit waits it out, then ends ``add`` as interrupted.
    As a context manager, leaving waits for the batch in flight: its error, if any, is raised
    unless another exception is already on its way.
    """

    def __init__(self, store, summary: AddSummary) -> None:
        self.store = store
        self.summary = summary
        self._finished = None  # threading.Event of the batch in flight, set when its thread is done
        self._error: BaseException | None = None

    def write(self, batch: "Batch") -> None:
        """Commit ``batch`` in the background, after the previous one (whose error is raised)."""
        import threading

        self.wait()
        self._finished = threading.Event()
        threading.Thread(target=self._commit, args=(batch, self._finished), name="winnowdb-writer",
                         daemon=True).start()

    def _commit(self, batch: "Batch", finished) -> None:
        try:
            docs, texts, fps = batch.tables()
            write_batch(self.store, docs, texts, fps, batch.replaced)
            summary = self.summary
            summary.batches += 1
            for d in batch.docs:
                if d["replaces"] is None:
                    summary.added += 1
                else:
                    summary.updated += 1
            summary.fingerprints += len(fps["hash"])
            summary.bytes += batch.bytes
        except BaseException as exc:  # raised again in the main thread by wait()
            self._error = exc
        finally:
            finished.set()

    def wait(self) -> None:
        """Block until the batch in flight is committed (or failed: then raise its error)."""
        # an Event, not Thread.join(): a join interrupted by Ctrl-C may mark a running thread
        # as stopped (CPython <= 3.12), and the connection would be used while still busy
        finished, interrupted = self._finished, False
        while finished is not None and not finished.is_set():
            try:
                finished.wait()
            except KeyboardInterrupt:  # the commit goes on regardless: wait for it, then stop
                interrupted = True
        self._finished = None
        error, self._error = self._error, None
        if error is not None:
            raise error
        if interrupted:
            raise KeyboardInterrupt

    def __enter__(self) -> "BatchWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.wait()
            return
        try:
            self.wait()
        except BaseException:  # the exception already on its way matters more
            pass


class Batch:
    """Finished documents waiting to be written together: their rows, texts and fingerprints."""

    def __init__(self) -> None:
        self.docs: list[dict] = []
        self.texts: list[str] = []
        self.fps: list = []
        self.replaced: list[int] = []
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.docs)

    def tables(self) -> tuple[dict, dict, dict]:
        """The batch as (documents, document_texts, fingerprints) column dicts of numpy arrays,
        in table column order, for one bulk INSERT each."""
        docs = self.docs

        def column(key: str, dtype) -> np.ndarray:
            return np.array([d[key] for d in docs], dtype=dtype)

        documents = {
            "doc": column("doc", np.int32),
            **{key: column(key, object) for key in ("path", "submission", "label", "kind", "normalizer",
                                                    "content_hash", "normalized_hash", "encoding")},
            **{key: column(key, np.int64) for key in ("bytes", "chars", "units", "fingerprints", "simhash")},
            "added_at": column("added_at", "datetime64[us]"),
        }
        texts = {"doc": documents["doc"], "text": np.array(self.texts, dtype=object)}
        fps = self.fps
        fingerprints = {
            "hash": np.concatenate([f.hash for f in fps]) if fps else np.empty(0, np.int64),
            "doc": np.repeat(documents["doc"], [len(f) for f in fps]) if fps else np.empty(0, np.int32),
            "pos": np.concatenate([f.pos for f in fps]).astype(np.int32) if fps else np.empty(0, np.int32),
            "start_offset": (np.concatenate([f.start for f in fps]).astype(np.int32) if fps
                             else np.empty(0, np.int32)),
            "end_offset": (np.concatenate([f.stop for f in fps]).astype(np.int32) if fps
                           else np.empty(0, np.int32)),
        }
        return documents, texts, fingerprints
