"""The ``add`` pipeline: walk -> read -> normalize -> fingerprint -> store, in committed batches.

Files are skipped when unchanged (the same kind, label and submission, and the same size and
recorded times, ``unchanged``; else read and the same content hash), read,
normalized, fingerprinted (``prepare``, in worker processes) and their documents and texts
committed in batches of up to 8,192 documents, each batch one transaction, by a writer thread
while the next batch is being prepared (``batches``); their fingerprints are stored at the end,
ordered by hash, a bucket of hashes per transaction, then one transaction makes the documents indexed
(``store.runs``). Ctrl-C stops reading and stores what was read; a kill loses at most the batch
not yet committed: the next ``add`` fingerprints the committed documents again from their stored
texts (``fold_pending``) before it reads anything, so running the same ``add`` again finishes the
job.
"""
from __future__ import annotations

import datetime as _dt
import time
from typing import Callable

from ..settings import digest_width, text_normalizer
from ..store.layout import ROW_GROUP_ROWS
from ..store.purge import purge
from ..store.runs import FingerprintRun
from ..store.writes import bulk_writes, record_times
from .batches import AddSummary, Batch, BatchWriter
from .huge import add_huge
from .pending import fold_pending
from .placement import Placement
from .prepare import default_jobs, prepare_task, prepared_stream
from .read import Skipped
from .rows import rows_piece
from .unchanged import recorded_times, same_file
from .walk import Listed, index_files, paused_gc, walk

__all__ = ["AddSummary", "add_paths", "BATCH_BYTES", "BATCH_DOCS"]

#: a batch is committed once it holds this many bytes of files (less towards the end of an add)
#: or ``BATCH_DOCS`` documents
BATCH_BYTES = 32 * 1024 * 1024
#: a row group of the documents' tables as an index is attached (``store.layout.ROW_GROUP_ROWS``):
#: DuckDB writes a transaction's full row groups into the file, compressed, at its commit, where
#: the rows of a smaller one go to its log first, and into the file at the next checkpoint. With
#: 2,000 (8 MB), a 100,000-document add made 50 commits instead of 13 and spent ~1 s more of the
#: main process's CPU (bench/RESULTS.md, Ingest)
BATCH_DOCS = ROW_GROUP_ROWS


def _times(listed: Listed, stamp: tuple) -> dict[str, int]:
    """A document row's mtime_ns and ctime_ns (``unchanged.recorded_times``)."""
    mtime_ns, ctime_ns = recorded_times(listed, stamp)
    return {"mtime_ns": mtime_ns, "ctime_ns": ctime_ns}


def add_paths(store, paths: list[str], *, label: str | None = None, boilerplate: bool = False,
              submission_depth: int | None = None, language: str | None = None,
              on_start: Callable[[int, int], None] | None = None,
              on_file: Callable[[str, int], None] | None = None,
              on_finish: Callable[[int], None] | None = None,
              on_merge: Callable[[int, int], None] | None = None,
              jobs: int | None = None, listing: list | None = None, workers=None) -> AddSummary:
    """Index every file under ``paths``; returns what was done (also when interrupted).

    ``on_start(files, total_bytes)`` and ``on_file(path, size)`` report progress, and
    ``on_finish(fingerprints)`` the start of the final step (storing the fingerprints);
    ``on_merge(done, of)`` the progress of a merge of the fingerprint runs, when this add makes
    one due (``store.merge``; ``AddSummary.merged_seconds``; a Ctrl-C during the merge stops it
    alone: ``AddSummary.merge_interrupted``, every document indexed). ``jobs`` worker
    processes read and fingerprint files (default: one per CPU; 1 = all in this process); this
    process alone writes to the index, in order, so the result does not depend on ``jobs``.
    ``listing``: ``walk(paths)``, when the caller has it already (files are walked once).
    ``workers``: worker processes ``prepare.start_workers`` started for this add (the caller
    stops them if the add never reads).
    """
    t0 = time.perf_counter()
    # an index this winnowdb cannot read text for, or digest it as it did: say so first
    digest_width(store.settings, text_normalizer(store.settings))
    purge(store)  # the fingerprint rows a removal that was stopped left (store/purge.py)
    fold_pending(store)  # what an add that was killed committed, stored before anything new
    summary = AddSummary()
    kind = "boilerplate" if boilerplate else "document"
    walked = walk(paths) if listing is None else listing
    files: list[tuple[str, str | None]] = []  # (resolved path, the folder argument it was found under)
    listed: dict[str, Listed] = {}  # each file's size and times, from the walk
    own = index_files(store.path)
    for item, root in walked:
        if isinstance(item, Skipped):
            summary.skipped.append(item)
        elif not own(item.path):
            files.append((item.path, root))
            listed[item.path] = item
    if on_start:
        on_start(len(files), sum(item.size for item in listed.values()))
    with paused_gc():  # a million rows of bookkeeping, no cycles (walk.paused_gc)
        existing = store.documents_by_path([f for f, _ in files])
        stored = {p: (row[6], row[7]) for p, row in existing.items()}  # (label, submission)
        placed = Placement(store, stored, label, submission_depth)
    next_id = store.next_doc_id()
    batch = Batch()
    settings = store.settings
    run = FingerprintRun(store)
    writer = BatchWriter(store, summary, run)

    def flush() -> None:
        """Hand the batch to the writer thread (once the previous batch is committed)."""
        nonlocal batch
        if len(batch) == 0:
            return
        writer.write(batch)
        batch = Batch()

    tasks, submissions, labels = [], [], []
    same = []  # files unchanged by their size and times: not read
    retimed: dict[int, tuple[int, int]] = {}  # doc -> times to record, of files unchanged by their content
    with paused_gc():
        for spath, root in files:
            submission, file_label = placed(spath, root)
            old = existing.get(spath)
            unchanged_hash = None
            if old is not None:
                _, stored_hash, stored_kind, stored_bytes, mtime_ns, ctime_ns, *_ = old  # documents_by_path
                if stored_kind == kind and placed.stored.get(spath) == (file_label, submission):
                    if same_file(listed[spath], stored_bytes, mtime_ns, ctime_ns):
                        same.append(spath)
                        continue
                    unchanged_hash = stored_hash
            tasks.append((spath, settings, language, boilerplate, unchanged_hash))
            submissions.append(submission)
            labels.append(file_label)

    remaining = sum(item.size for item in listed.values())  # bytes of the files not yet done
    #: submission name -> its id: an existing submission keeps its own; a new one takes the id of
    #: its first document
    sub_ids = store.submission_ids(sorted(set(submissions)))

    def done(spath: str) -> None:
        nonlocal remaining
        size = listed[spath].size
        remaining -= size
        if on_file:
            on_file(spath, size)

    for spath in same:
        summary.unchanged += 1
        done(spath)

    def _read_all() -> None:
        """Read, fingerprint and commit every file, in order."""
        nonlocal next_id, batch
        # the writer is left first: its last commit is done (or failed) before workers stop;
        # bulk_writes: the batches' log is checkpointed into the file once, not every 16 MB, and
        # DuckDB's memory is capped, with room for the largest file's text
        jobs_n = jobs if jobs is not None else default_jobs()
        sizes = [listed[t[0]].size for t in tasks]  # of the files to read (not those unchanged by their times)
        with bulk_writes(store, largest_value=max(sizes, default=0)), \
                prepared_stream(tasks, jobs_n, sum(sizes), store, sizes, workers) as stream, \
                writer:
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
                    doc, _, _, _, mtime_ns, ctime_ns, *_ = old  # documents_by_path
                    times = recorded_times(listed[spath], prep.stamp)
                    if times != (mtime_ns or 0, ctime_ns or 0):
                        retimed[doc] = times
                    done(spath)
                    continue
                sub = sub_ids.setdefault(submission, next_id)
                if prep.status == "huge":
                    # -- reliability (issue 4): a huge document is fingerprinted in segments into
                    # the run, so memory stays bounded (see ingest/segmented.py and ingest/huge.py) --
                    src = prep.src
                    flush()
                    writer.wait()  # the connection is this thread's again
                    def counted(fingerprints: int, replacing: bool = old is not None, size: int = src.size) -> None:
                        nonlocal next_id
                        summary.fingerprints += fingerprints
                        summary.batches += 1
                        summary.added += not replacing
                        summary.updated += replacing
                        summary.bytes += size
                        next_id += 1

                    # Ctrl-C aborts the fingerprinting, not the commit and its counts
                    add_huge(store, src, settings, dict(
                        doc=next_id, path=spath, submission=submission, sub=sub, label=label, kind=kind,
                        added_at=_dt.datetime.now(), replaces=old[0] if old is not None else None,
                        **_times(listed[spath], src.stamp)),
                        run, language=language, every_kgram=boilerplate, on_commit=counted)
                    done(spath)
                    continue
                    # -- end reliability --
                src = prep.src
                batch.docs.append(dict(
                    doc=next_id, path=spath, submission=submission, sub=sub, label=label, kind=kind,
                    normalizer=prep.normalizer, content_hash=src.content_hash,
                    normalized_hash=prep.normalized_hash, encoding=src.encoding, bytes=src.size,
                    chars=len(src.text), units=prep.units, fingerprints=prep.fingerprints, hashes=prep.hashes,
                    added_at=_dt.datetime.now(), simhash=prep.simhash,
                    replaces=old[0] if old is not None else None, **_times(listed[spath], src.stamp)))
                batch.texts.append(src.text)
                if prep.text_hashes is not None:
                    batch.text_hashes.append((next_id, prep.text_hashes))
                if prep.piece is None:  # prepared here on its own (a big file)
                    batch.add_rows(rows_piece([prep.fps], [prep.first]), 0, next_id)
                else:
                    batch.add_rows(prep.piece, prep.local, next_id)
                batch.bytes += src.size
                next_id += 1
                done(spath)
                if batch.bytes >= min(BATCH_BYTES, max(BATCH_BYTES // 8, remaining // 2)) \
                        or len(batch) >= BATCH_DOCS:
                    flush()  # batches shrink towards the end, so little is left to write at the end
            flush()

    try:
        with run:
            try:
                _read_all()
            except KeyboardInterrupt:  # stop reading; what was read and committed is stored below
                summary.interrupted = True
            record_times(store, retimed)
            if summary.batches:  # the fingerprints, then the documents indexed
                if on_finish:
                    on_finish(run.rows)
                with bulk_writes(store):
                    finished = run.finish(on_merge=on_merge, merge_stops=True)
                summary.merged_seconds = finished.merged_seconds
                summary.merge_interrupted = finished.merge_interrupted
    except KeyboardInterrupt:  # a second Ctrl-C while storing: the documents stay pending, and
        summary.interrupted = True  # the next add stores them (fold_pending)
    summary.seconds = time.perf_counter() - t0
    return summary
