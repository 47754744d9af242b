"""The ``add`` pipeline: walk -> read -> normalize -> fingerprint -> store, in committed batches.

Files are read, skipped when unchanged (same content hash, kind, label and submission),
normalized, fingerprinted (``prepare``, in worker processes) and written to the index in batches
of a few megabytes, each batch one transaction, committed by a writer thread while the next batch
is being prepared (``batches``). An interruption (Ctrl-C, a kill) loses at most the batch not yet
committed; running the same ``add`` again finishes the job.
"""
from __future__ import annotations

import datetime as _dt
import time
from pathlib import Path
from typing import Callable

from ..settings import text_normalizer
from ..store.interrupts import deferred_interrupt
from ..store.writes import bulk_writes
from .batches import AddSummary, Batch, BatchWriter
from .huge import add_huge
from .placement import Placement
from .prepare import default_jobs, prepare_task, prepared_stream
from .read import Skipped
from .walk import index_files, walk

__all__ = ["AddSummary", "add_paths", "BATCH_BYTES", "BATCH_DOCS"]

BATCH_BYTES = 8 * 1024 * 1024
BATCH_DOCS = 2000


def add_paths(store, paths: list[str], *, label: str | None = None, boilerplate: bool = False,
              submission_depth: int | None = None, language: str | None = None,
              on_start: Callable[[int, int], None] | None = None,
              on_file: Callable[[str, int], None] | None = None,
              jobs: int | None = None) -> AddSummary:
    """Index every file under ``paths``; returns what was done (also when interrupted).

    ``on_start(files, total_bytes)`` and ``on_file(path, size)`` report progress. ``jobs`` worker
    processes read and fingerprint files (default: one per CPU; 1 = all in this process); this
    process alone writes to the index, in order, so the result does not depend on ``jobs``.
    """
    t0 = time.perf_counter()
    text_normalizer(store.settings)  # an index this winnowdb cannot read text for: say so first
    summary = AddSummary()
    kind = "boilerplate" if boilerplate else "document"
    walked = walk(paths)
    files: list[tuple[Path, Path | None]] = []
    own = index_files(store.path)
    for item, root in walked:
        if isinstance(item, Skipped):
            summary.skipped.append(item)
        elif not own(item):
            files.append((item, root))
    sizes = {}
    for f, _ in files:
        try:
            sizes[f] = f.stat().st_size
        except OSError:
            sizes[f] = 0
    if on_start:
        on_start(len(files), sum(sizes.values()))
    existing = store.documents_by_path([str(f) for f, _ in files])
    placed = Placement(store, [str(f) for f, _ in files], label, submission_depth)
    next_id = store.next_doc_id()
    batch = Batch()
    settings = store.settings

    writer = BatchWriter(store, summary)

    def flush() -> None:
        """Hand the batch to the writer thread (once the previous batch is committed)."""
        nonlocal batch
        if len(batch) == 0:
            return
        writer.write(batch)
        batch = Batch()

    tasks, submissions, labels = [], [], []
    for path, root in files:
        spath = str(path)
        submission, file_label = placed(path, root)
        old = existing.get(spath)
        unchanged_hash = None
        if old is not None and old[2] == kind and placed.stored.get(spath) == (file_label, submission):
            unchanged_hash = old[1]
        tasks.append((spath, settings, language, boilerplate, unchanged_hash))
        submissions.append(submission)
        labels.append(file_label)

    remaining = sum(sizes.values())  # bytes of the files not yet done

    def done(spath: str) -> None:
        nonlocal remaining
        remaining -= sizes[Path(spath)]
        if on_file:
            on_file(spath, sizes[Path(spath)])

    try:
        # the writer is left first: its last commit is done (or failed) before workers stop;
        # bulk_writes: the batches' log is checkpointed into the file once, not every 16 MB
        with bulk_writes(store), prepared_stream(tasks, jobs if jobs is not None else default_jobs(),
                                                   sum(sizes.values()), store) as stream, writer:
            for task, submission, label, prep in zip(tasks, submissions, labels, stream):
                spath = task[0]
                old = existing.get(spath)
                if prep.status == "big":  # left to this process by a worker: read it (once) here
                    prep = prepare_task(task)
                if prep.status == "skipped":
                    summary.skipped.append(prep.skipped)
                    done(spath)
                    continue
                if prep.status == "unchanged":
                    summary.unchanged += 1
                    done(spath)
                    continue
                if prep.status == "huge":
                    # -- reliability (issue 4): a huge document is fingerprinted and stored in segments,
                    # in its own transaction, so memory stays bounded (see winnowdb/segmented.py) --
                    src = prep.src
                    flush()
                    writer.wait()  # the connection is this thread's again
                    with deferred_interrupt():  # Ctrl-C still aborts the streaming, not commit + count
                        summary.fingerprints += add_huge(store, src, settings, dict(
                            doc=next_id, path=spath, submission=submission, label=label, kind=kind,
                            added_at=_dt.datetime.now(), replaces=old[0] if old is not None else None),
                            language=language, every_kgram=boilerplate)
                        summary.batches += 1
                        summary.added += old is None
                        summary.updated += old is not None
                        summary.bytes += src.size
                        next_id += 1
                    done(spath)
                    continue
                    # -- end reliability --
                src = prep.src
                batch.docs.append(dict(
                    doc=next_id, path=spath, submission=submission, label=label, kind=kind,
                    normalizer=prep.normalizer, content_hash=src.content_hash,
                    normalized_hash=prep.normalized_hash, encoding=src.encoding, bytes=src.size,
                    chars=len(src.text), units=prep.units, fingerprints=len(prep.fps),
                    added_at=_dt.datetime.now(), simhash=prep.simhash,
                    replaces=old[0] if old is not None else None))
                if old is not None:
                    batch.replaced.append(old[0])
                batch.texts.append(src.text)
                batch.fps.append(prep.fps)
                batch.bytes += src.size
                next_id += 1
                done(spath)
                if batch.bytes >= min(BATCH_BYTES, max(BATCH_BYTES // 8, remaining // 2)) \
                        or len(batch) >= BATCH_DOCS:
                    flush()  # batches shrink towards the end, so little is left to write at the end
            flush()
    except KeyboardInterrupt:
        summary.interrupted = True
    summary.seconds = time.perf_counter() - t0
    return summary
