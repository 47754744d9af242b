"""Per-file work of ``add``, in worker processes or in this one: read, normalize, fingerprint.

``prepare`` does everything ``add`` does for one file before storing it; ``prepared_stream``
runs it over the tasks in ``jobs`` worker processes (``workers.OrderedPool``) when the work is
big enough to pay for them, and hands the results back in task order. ``start_workers`` starts
those processes before the index is opened, when the caller knows that every file it walked
will be read (``winnowdb add`` making a new index): they load the compiled kernels meanwhile.
"""
from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass
from typing import cast

from ..settings import digest_width
from . import segmented
from .document import (
    code_text_hashes,
    document_simhash,
    document_simhashes,
    fingerprint_source,
    fingerprint_sources,
    normalized_hash,
)
from .read import Skipped, Source, read_source
from .rows import rows_piece

__all__ = ["Prepared", "prepare", "prepare_task", "prepare_chunk", "prepared_stream", "start_workers",
           "in_workers", "warm_kernels", "default_jobs",
           "first_of_each_hash", "chunked", "PARALLEL_MIN_BYTES", "PARALLEL_MIN_FILES", "CHUNK_FILES",
           "CHUNK_BYTES", "AHEAD"]


@dataclass
class Prepared:
    """One file's finished per-file work (done in a worker process or in process)."""

    path: str
    status: str  # "ok", "skipped", "unchanged", "huge" (with src: stored in segments) or "big" (not read)
    skipped: Skipped | None = None
    src: Source | None = None
    normalizer: str = ""
    normalized_hash: str = ""
    units: int = 0
    fps: object = None  # Fingerprints; None once they are in ``piece``
    first: object = None  # mask of the first row of each distinct hash in fps
    hashes: int = 0  # distinct hashes in fps
    simhash: int = 0
    fingerprints: int = 0  # rows in fps
    piece: object = None  # rows.RowsPiece of the chunk's documents, this one's rows those of ``local``
    local: int = -1
    text_hashes: object = None  # a code document's text family (document.code_text_hashes), or None
    stamp: tuple = ()  # "unchanged": the file's Source.stamp as read


def prepare(path: str, settings: dict[str, str], language: str | None, boilerplate: bool,
            unchanged_hash: str | None, in_worker: bool = False) -> Prepared:
    """Read, normalize and fingerprint one file: everything ``add`` does per file before storing.

    ``unchanged_hash`` is the stored content hash when the file's label, kind and submission are
    the same as before: a file whose content still has that hash is not fingerprinted again.
    A file that may be huge (more bytes than ``segmented.HUGE_CHARS``) is left to the main process
    by a worker (``in_worker``: status "big", nothing read), so it is read once, not twice; a huge
    file read here comes back as "huge" with its text, to be stored in segments.
    """
    src = _read(path, settings, language, unchanged_hash, in_worker)
    if isinstance(src, Prepared):
        return src
    try:
        normalizer, norm, fps = fingerprint_source(src.text, settings, path=path, language=language,
                                                   every_kgram=boilerplate)
    except ValueError as exc:
        return _unreadable(path, exc)
    prep = _finished(path, src, settings, normalizer, norm, fps,
                     document_simhash(src.text, norm if normalizer == "text" else None))
    if normalizer.startswith("code"):
        texts = code_text_hashes([src.text], settings, every_kgram=boilerplate)
        prep.text_hashes = texts[0] if texts is not None else None
    return prep


def _read(path: str, settings, language: str | None, unchanged_hash: str | None,
          in_worker: bool) -> Prepared | Source:
    """The file's text, or the Prepared that ends its work here (big, skipped, unchanged, huge)."""
    # a str: a Path per file costs more than reading a small one. A file with more bytes than a
    # huge document has characters may be one (every character takes at least a byte): a worker
    # leaves it to this process (the size is read on the open file: no second stat per file)
    src = read_source(path, larger_than=segmented.HUGE_CHARS if in_worker else None)
    if src is None:
        return Prepared(path, "big")
    if isinstance(src, Skipped):
        return Prepared(path, "skipped", skipped=src)
    if unchanged_hash is not None and unchanged_hash == src.content_hash:
        return Prepared(path, "unchanged", stamp=src.stamp)
    if segmented.is_huge(src.text, settings, path, language):
        return Prepared(path, "huge", src=src)
    return src


def _unreadable(path: str, exc: ValueError) -> Prepared:
    return Prepared(path, "skipped", skipped=Skipped(path, str(exc).split(": ", 1)[-1]))


def _finished(path: str, src: Source, settings, normalizer: str, norm, fps, simhash: int,
              first: tuple | None = None) -> Prepared:
    first, hashes = first if first is not None else first_of_each_hash(fps.hash)
    return Prepared(path, "ok", src=src, normalizer=normalizer,
                    normalized_hash=normalized_hash(norm, digest_width(settings, normalizer)),
                    units=len(norm), fps=fps, first=first, hashes=hashes, simhash=simhash, fingerprints=len(fps))


def prepare_chunk(tasks: list[tuple], in_worker: bool = True, compiled: bool = False) -> list[Prepared]:
    """``prepare`` of several task tuples: the files are read one by one, then the documents
    (not boilerplate) are fingerprinted and simhashed together, one pass per normalizer
    (``document.fingerprint_sources``, ``document_simhashes``, through the compiled kernels when
    ``compiled``: the same rows as ``prepare``'s, bit for bit), and their rows grouped by hash
    bucket in one ``rows.RowsPiece`` (each result's ``piece`` and ``local``). In a worker
    process, one message each way per chunk, not per file."""
    out: list[Prepared | None] = [None] * len(tasks)
    batch: list[tuple[int, Source]] = []
    for i, task in enumerate(tasks):
        path, settings, language, boilerplate, unchanged_hash = task
        same = settings is tasks[0][1] and language == tasks[0][2]
        if boilerplate or not same:  # rare: the careful path, one file at a time
            out[i] = prepare(path, settings, language, boilerplate, unchanged_hash, in_worker=in_worker)
            continue
        src = _read(path, settings, language, unchanged_hash, in_worker)
        if isinstance(src, Prepared):
            out[i] = src
        else:
            batch.append((i, src))
    if batch:
        settings, language = tasks[0][1], tasks[0][2]
        texts = [src.text for _, src in batch]
        paths = [tasks[i][0] for i, _ in batch]
        done = fingerprint_sources(texts, settings, paths, language=language, compiled=compiled)
        normalized = [None if isinstance(d, ValueError) else d[:2] for d in done]
        simhashes = document_simhashes([t if not isinstance(d, ValueError) else "" for t, d in zip(texts, done)],
                                       normalized, compiled=compiled)
        firsts = _first_masks([d[2].hash for d in done if not isinstance(d, ValueError)], compiled)
        for (i, src), path, d, simhash in zip(batch, paths, done, simhashes):
            out[i] = _unreadable(path, d) if isinstance(d, ValueError) else \
                _finished(path, src, settings, *d, simhash, first=next(firsts))
    done_list = cast("list[Prepared]", out)  # every task's place is filled above
    ok = [prep for prep in done_list if prep.status == "ok"]
    code = [prep for prep in ok if prep.normalizer.startswith("code") and prep.text_hashes is None]
    if code:  # their text family, in one pass (prepare() did its own files')
        hashes = code_text_hashes([cast(Source, prep.src).text for prep in code], tasks[0][1], compiled=compiled)
        for prep, h in zip(code, hashes or ()):
            prep.text_hashes = h
    if ok:  # the chunk's rows as one table grouped by bucket: the main process only appends them
        piece = rows_piece([prep.fps for prep in ok], [prep.first for prep in ok])
        for j, prep in enumerate(ok):
            prep.piece, prep.local, prep.fps, prep.first = piece, j, None, None
    return done_list


def _first_masks(hashes: list, compiled: bool):
    """``first_of_each_hash`` of each array of ``hashes``, in order (an iterator): by one call of
    the compiled kernel for them all when ``compiled``."""
    from ..fingerprint.compiled import compiled_kernels

    kernels = compiled_kernels() if compiled and hashes else None
    if kernels is None:
        return (first_of_each_hash(h) for h in hashes)
    import numpy as np

    offsets = np.zeros(len(hashes) + 1, dtype=np.int64)
    np.cumsum([h.shape[0] for h in hashes], out=offsets[1:])
    first, distinct = kernels.first_in_docs(np.concatenate(hashes), offsets)
    bounds, counts = offsets.tolist(), distinct.tolist()
    return ((first[bounds[i]:bounds[i + 1]], counts[i]) for i in range(len(hashes)))


def first_of_each_hash(hashes) -> tuple:
    """(mask of the first occurrence of each distinct hash, number of distinct hashes)."""
    import numpy as np

    _, at = np.unique(hashes, return_index=True)
    first = np.zeros(hashes.shape[0], dtype=bool)
    first[at] = True
    return first, int(at.shape[0])


def prepare_task(task: tuple) -> Prepared:
    """``prepare`` of one task tuple (path, settings, language, boilerplate, unchanged_hash)."""
    return prepare(*task)


#: files handed to a worker at a time (small files cost more to send one by one than to prepare),
#: and at most this many bytes of them (unless one file is bigger): the chunks out at once (AHEAD
#: per worker) and their results stay bounded whatever the files' sizes
CHUNK_FILES = 64
CHUNK_BYTES = 4 * 1024 * 1024


def chunked(tasks: list[tuple], sizes: list[int] | None = None) -> list[list[tuple]]:
    """``tasks`` cut into consecutive chunks of at most ``CHUNK_FILES`` files and ``CHUNK_BYTES``
    bytes (``sizes[i]``: task i's file size; a bigger file is a chunk of its own)."""
    if sizes is None:
        return [tasks[i:i + CHUNK_FILES] for i in range(0, len(tasks), CHUNK_FILES)]
    chunks: list[list[tuple]] = []
    current: list[tuple] = []
    held = 0
    for task, size in zip(tasks, sizes):
        if current and (len(current) >= CHUNK_FILES or held + size > CHUNK_BYTES):
            chunks.append(current)
            current, held = [], 0
        current.append(task)
        held += size
    if current:
        chunks.append(current)
    return chunks


#: chunks handed to each worker at a time. More gained nothing measurable (16: 100k documents'
#: reading 20.8 s against 21.8 s, within noise) and is unsafe: tasks wait in a worker's pipe while
#: the worker blocks sending a result, and this process blocks sending more than the pipe holds
AHEAD = 4

#: below this much input, ``add`` works in process (starting workers would cost more than it saves)
PARALLEL_MIN_BYTES = 2 * 1024 * 1024
PARALLEL_MIN_FILES = 8


def default_jobs() -> int:
    """Worker processes for fingerprinting: one per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def in_workers(jobs: int, files: int, total_bytes: int) -> bool:
    """Whether an add that reads ``files`` files of ``total_bytes`` bytes runs them in ``jobs``
    worker processes (else in this one: starting workers would cost more than it saves)."""
    return jobs > 1 and files >= PARALLEL_MIN_FILES and total_bytes >= PARALLEL_MIN_BYTES


def warm_kernels() -> None:
    """Load the compiled kernels (numba, ~0.2 s a process): a pre-started worker's first work."""
    from ..fingerprint.compiled import compiled_kernels

    compiled_kernels()


def start_workers(jobs: int, files: int, total_bytes: int):
    """The worker processes for an add that will read ``files`` files of ``total_bytes`` bytes,
    started now, each loading the compiled kernels while the caller opens the index (pass them
    to ``prepared_stream``, which stops them when reading is done); None when such an add runs in
    this process. Use as a context manager (``workers.OrderedPool``): leaving it stops them if
    ``prepared_stream`` has not."""
    if not in_workers(jobs, files, total_bytes):
        return None
    return _pool(jobs, total_bytes >= PARALLEL_MIN_BYTES, warm=warm_kernels)


def _pool(processes: int, compiled: bool, warm=None):
    """``processes`` workers running ``prepare_chunk``."""
    import multiprocessing as mp

    from .workers import OrderedPool

    # fork: workers start at once with everything imported. They only run prepare (numpy,
    # re, file reads), never DuckDB, so DuckDB's threads in this process do not concern them.
    # Where fork is unavailable, forkserver (with this module preloaded), else spawn.
    methods = mp.get_all_start_methods()
    context = next(m for m in ("fork", "forkserver", "spawn") if m in methods)
    if context == "forkserver":
        mp.get_context(context).set_forkserver_preload([__name__])
    func = functools.partial(prepare_chunk, compiled=compiled)
    return OrderedPool(func, processes, context=context, ahead=AHEAD, warm=warm)


@contextlib.contextmanager
def prepared_stream(tasks: list[tuple], jobs: int, total_bytes: int, store=None, sizes: list[int] | None = None,
                    workers=None):
    """The tasks' ``Prepared`` results, in order: from ``jobs`` worker processes when the work is
    big enough to pay for them, else computed here, in chunks (``chunked``: ``sizes`` are the
    tasks' file sizes). ``workers``: the processes ``start_workers`` started for this add, used
    instead of new ones (and stopped when the stream is left, whether they were used or not).
    Workers ignore Ctrl-C and are stopped when the stream is left (finished, interrupted or
    failed). While workers run, DuckDB (``store``) writes with one thread, leaving the other
    cores to them."""
    chunks = chunked(tasks, sizes)
    # the compiled kernels pay for loading numba (~0.4 s) on this much input. Workers load them
    # themselves: in this process numba would hold ~130 MB through the whole add
    compiled = total_bytes >= PARALLEL_MIN_BYTES
    if not in_workers(jobs, len(tasks), total_bytes):
        if workers is not None:
            workers.kill()  # started for an add that reads less than its walk listed
        yield (prep for chunk in chunks for prep in prepare_chunk(chunk, in_worker=False, compiled=compiled))
        return
    with workers if workers is not None else _pool(min(jobs, len(chunks)), compiled,
                                                   warm=warm_kernels if compiled else None) as pool:
        with store.threads(1) if store is not None else contextlib.nullcontext():
            yield (prep for chunk in pool.imap(chunks) for prep in chunk)
