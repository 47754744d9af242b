"""The ``add`` pipeline: sources -> normalize -> fingerprint -> store, in committed batches.

Files are read, skipped when unchanged (same content hash, kind, label and submission),
normalized, fingerprinted and written to the index in batches of a few megabytes, each batch one
transaction, committed by a writer thread while the next batch is being prepared. An interruption
(Ctrl-C, a kill) loses at most the batch not yet committed; running the same ``add`` again
finishes the job.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from .fingerprint import Fingerprints, fingerprint
from .codetokens import normalize_code
from .normalizers import choose_normalizer, text_normalizer
from .normalize import normalize_prose, normalize_text, normalize_words
from .simhash import document_simhash
from .sources import Skipped, Source, iter_files, read_source
from . import segmented  # reliability (issue 4): huge documents
from .interrupts import deferred_interrupt
from .batches import Batch, BatchWriter
from .store import Store

__all__ = ["AddSummary", "add_paths", "fingerprint_source"]

_SALT = {"text": 0, "prose": 0, "words": 0x11, "code": 0x22}

BATCH_BYTES = 8 * 1024 * 1024
BATCH_DOCS = 2000


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


def fingerprint_source(text: str, settings: dict[str, str], *, path: str | None = None,
                       language: str | None = None, every_kgram: bool = False):
    """(normalizer name, Normalized, Fingerprints) of a text under an index's settings.

    Code is tokenized (k and w count tokens: settings code_k, code_w); text is read as prose
    (letters, spaces and marks: k and w count them), folded to letters and digits (k and w count
    characters) or, with the words normalizer, to words.
    ``every_kgram`` keeps the hash of every k-gram instead of winnowing. Boilerplate is stored
    that way: in a document that embeds the boilerplate, windows near its edges can select
    boilerplate k-grams that winnowing the boilerplate file alone would not, and those must still
    be recognised as boilerplate. Prose boilerplate that begins (ends) with a letter also gets
    the k-grams it would begin (end) with when set off by white space or punctuation in a document,
    which its own file does not show (white space at a file's ends is dropped).
    """
    family, lang = choose_normalizer(settings, path, language)
    if family == "code":
        norm = normalize_code(text, lang)
        k, w = int(settings.get("code_k", settings["k"])), int(settings.get("code_w", settings["w"]))
        name = f"code:{lang}"
    else:
        norm = normalize_as(text, family)
        k, w = int(settings["k"]), int(settings["w"])
        name = family
    selection = "all" if every_kgram else settings.get("selection", "winnow")
    fps = fingerprint(norm, k, w, salt=_SALT[family], selection=selection, m=int(settings.get("mod_m", 1)))
    if every_kgram and family == "prose":
        fps = with_rows(fps, set_off_edges(norm, norm, len(norm), k))
    return name, norm, fps


def set_off_edges(head, tail, units: int, k: int) -> Fingerprints:
    """The k-grams a prose text makes where a document sets it off: a separator unit (space or
    mark) and its first k - 1 units, where it begins with a letter; its last k - 1 units and a
    separator, where it ends with one. ``head`` holds (at least k) units from the text's start,
    ``tail`` from its end (offsets already in the whole text), ``units`` its length: the rows get
    the positions and spans of its first and last k-grams."""
    from .fingerprint import kgram_hashes
    from .normalize import PROSE_MARK, PROSE_SPACE

    seps = (PROSE_SPACE, PROSE_MARK)
    rows = []  # (hash, pos, start, stop)
    if units >= k:
        for sep in seps:
            sep_unit = np.array([sep], dtype=np.uint64)
            if int(head.units[0]) not in seps:
                gram = np.concatenate((sep_unit, head.units[:k - 1]))
                rows.append((int(kgram_hashes(gram, k, _SALT["prose"])[0]), 0, int(head.start[0]),
                             int(head.stop[k - 2])))
            if int(tail.units[-1]) not in seps:
                gram = np.concatenate((tail.units[len(tail) - k + 1:], sep_unit))
                rows.append((int(kgram_hashes(gram, k, _SALT["prose"])[0]), units - k,
                             int(tail.start[len(tail) - k + 1]), int(tail.stop[-1])))
    return Fingerprints(*(np.array([r[i] for r in rows], dtype=np.int64) for i in range(4)))


def with_rows(fps: Fingerprints, more: Fingerprints) -> Fingerprints:
    """``fps`` and ``more`` together, in position order (stable)."""
    if not len(more):
        return fps
    cols = [np.concatenate((getattr(fps, f), getattr(more, f))) for f in ("hash", "pos", "start", "stop")]
    order = np.argsort(cols[1], kind="stable")
    return Fingerprints(*(c[order] for c in cols))


def normalize_as(text: str, normalizer: str):
    """``text`` normalized as a document stored with ``normalizer`` (``documents.normalizer``:
    ``prose``, ``text``, ``words`` or ``code:LANG``): the units its fingerprints' positions count."""
    if normalizer.startswith("code:"):
        return normalize_code(text, normalizer[len("code:"):])
    if normalizer == "prose":
        return normalize_prose(text)
    return normalize_words(text) if normalizer == "words" else normalize_text(text)


def kgram_window(normalizer: str, settings: dict[str, str]) -> tuple[int, int]:
    """(k, w) of documents stored with ``normalizer`` under an index's settings."""
    if normalizer.startswith("code:"):
        return int(settings.get("code_k", settings["k"])), int(settings.get("code_w", settings["w"]))
    return int(settings["k"]), int(settings["w"])


def normalized_hash(norm) -> str:
    """The ``normalized_hash`` of a document: equal for lexically-equivalent documents."""
    return hashlib.blake2b(norm.units.tobytes(), digest_size=16).hexdigest()


def _submission_of(path: Path, root: Path | None, depth: int | None) -> str:
    if depth is None or root is None:
        return str(path)
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return str(path)
    if len(parts) <= depth:
        return str(path)
    return str(root.joinpath(*parts[:depth]))


def _index_files(db_path: str | os.PathLike):
    """A test of whether a file is the index itself (its DuckDB file, write-ahead log or a
    temporary of its creation): an index kept inside the folder it indexes is not a document."""
    db = Path(db_path).resolve()
    names = {db.name, db.name + ".wal"}
    from .dbfile import creating_prefix

    creating = creating_prefix(db.name)

    def own(path: Path) -> bool:
        return path.parent == db.parent and (path.name in names or path.name.startswith(creating))

    return own


def _walk(paths: Iterable[str]) -> list[tuple[Path | Skipped, Path | None]]:
    """Every file under ``paths`` once (a file named twice, or inside a named folder too, once),
    with the folder argument it was found under (for ``--submission-depth``)."""
    out = []
    seen: set[Path] = set()
    for raw in paths:
        root = Path(raw).resolve() if Path(raw).is_dir() else None
        for item in iter_files([raw]):
            if isinstance(item, Path):
                if item in seen:
                    continue
                seen.add(item)
            out.append((item, root))
    return out


@dataclass
class _Prepared:
    """One file's finished per-file work (done in a worker process or in process)."""

    path: str
    status: str  # "ok", "skipped", "unchanged", "huge" (with src: stored in segments) or "big" (not read)
    skipped: Skipped | None = None
    src: Source | None = None
    normalizer: str = ""
    normalized_hash: str = ""
    units: int = 0
    fps: object = None
    simhash: int = 0


def _prepare(path: str, settings: dict[str, str], language: str | None, boilerplate: bool,
             unchanged_hash: str | None, in_worker: bool = False) -> _Prepared:
    """Read, normalize and fingerprint one file: everything ``add`` does per file before storing.

    ``unchanged_hash`` is the stored content hash when the file's label, kind and submission are
    the same as before: a file whose content still has that hash is not fingerprinted again.
    A file that may be huge (more bytes than ``segmented.HUGE_CHARS``) is left to the main process
    by a worker (``in_worker``: status "big", nothing read), so it is read once, not twice; a huge
    file read here comes back as "huge" with its text, to be stored in segments.
    """
    if in_worker and _may_be_huge(path):
        return _Prepared(path, "big")
    src = read_source(Path(path))
    if isinstance(src, Skipped):
        return _Prepared(path, "skipped", skipped=src)
    if unchanged_hash is not None and unchanged_hash == src.content_hash:
        return _Prepared(path, "unchanged")
    if segmented.is_huge(src.text, settings, path, language):
        return _Prepared(path, "huge", src=src)
    try:
        normalizer, norm, fps = fingerprint_source(src.text, settings, path=path, language=language,
                                                   every_kgram=boilerplate)
    except ValueError as exc:
        return _Prepared(path, "skipped", skipped=Skipped(path, str(exc).split(": ", 1)[-1]))
    return _Prepared(path, "ok", src=src, normalizer=normalizer, normalized_hash=normalized_hash(norm),
                     units=len(norm), fps=fps,
                     simhash=document_simhash(src.text, norm if normalizer == "text" else None))


def _may_be_huge(path: str) -> bool:
    """Whether the file has more bytes than a huge document has characters (every character
    takes at least one byte, so a smaller file is never huge)."""
    try:
        return Path(path).stat().st_size > segmented.HUGE_CHARS
    except OSError:
        return False


def _prepare_task(task: tuple) -> _Prepared:
    return _prepare(*task)


def _prepare_in_worker(task: tuple) -> _Prepared:
    return _prepare(*task, in_worker=True)


#: below this much input, ``add`` works in process (starting workers would cost more than it saves)
PARALLEL_MIN_BYTES = 2 * 1024 * 1024
PARALLEL_MIN_FILES = 8


def default_jobs() -> int:
    """Worker processes for fingerprinting: one per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def _prepared_stream(tasks: list[tuple], jobs: int, total_bytes: int, con=None):
    """The tasks' ``_Prepared`` results, in order: from ``jobs`` worker processes when the work is
    big enough to pay for them, else computed here. Workers ignore Ctrl-C and are stopped when the
    stream is left (finished, interrupted or failed). While workers run, DuckDB (``con``) writes
    with one thread, leaving the other cores to them."""
    if jobs <= 1 or len(tasks) < PARALLEL_MIN_FILES or total_bytes < PARALLEL_MIN_BYTES:
        yield (_prepare_task(t) for t in tasks)
        return
    import multiprocessing as mp

    from .workers import OrderedPool

    # fork: workers start at once with everything imported. They only run _prepare (numpy,
    # re, file reads), never DuckDB, so DuckDB's threads in this process do not concern them.
    # Where fork is unavailable, forkserver (with this module preloaded), else spawn.
    methods = mp.get_all_start_methods()
    context = next(m for m in ("fork", "forkserver", "spawn") if m in methods)
    if context == "forkserver":
        mp.get_context(context).set_forkserver_preload([__name__])
    threads = con.execute("SELECT current_setting('threads')").fetchall()[0][0] if con is not None else None
    with OrderedPool(_prepare_in_worker, min(jobs, len(tasks)), context=context) as pool:
        try:
            if threads is not None:
                con.execute("SET threads = 1")
            yield pool.imap(tasks)
        finally:
            if threads is not None:
                try:
                    con.execute(f"SET threads = {int(threads)}")
                except Exception:  # never hide the error or interrupt that ended the stream
                    pass


class _Placement:
    """Where one file of an ``add`` belongs: its (submission, label).

    Given options decide: ``--submission-depth`` (``_submission_of``) and ``--label``. An option
    not given keeps what the index already says, so re-adding a folder to pick up new or changed
    files never rewrites submissions or labels set before: an indexed file keeps its own; a new
    file inside the folder of an existing submission joins it (a late file of a student's
    submission) and takes its label; any other file is its own submission, unlabelled.
    """

    def __init__(self, store: Store, paths: list[str], label: str | None, depth: int | None) -> None:
        import numpy as np

        from .sqlfiles import registered

        self.label, self.depth = label, depth
        with registered(store.con, _add_paths={"path": np.array(paths, dtype=object)}):
            rows = store.con.execute("SELECT d.path, d.label, d.submission FROM documents d "
                                     "JOIN _add_paths a ON a.path = d.path").fetchall() if paths else []
        #: path -> (label, submission) of the indexed documents among this add's files
        self.stored: dict[str, tuple[str | None, str]] = {p: (lab, sub) for p, lab, sub in rows}
        #: folder submission (not a file that is its own) -> the label all its files share, or None
        self.folders: dict[str, str | None] = dict(store.con.execute(
            "SELECT submission, CASE WHEN COUNT(DISTINCT label) = 1 AND COUNT(label) = COUNT(*) "
            "THEN MIN(label) END FROM documents WHERE submission <> path GROUP BY submission").fetchall())

    def __call__(self, path: Path, root: Path | None) -> tuple[str, str | None]:
        spath = str(path)
        before = self.stored.get(spath)
        if self.depth is not None:
            submission = _submission_of(path, root, self.depth)
        elif before is not None:
            submission = before[1]
        else:
            submission = next((str(d) for d in path.parents if str(d) in self.folders), spath)
        if self.label is not None:
            label = self.label
        elif before is not None:
            label = before[0]
        else:  # a new file takes the label of the folder submission it belongs to, if any
            label = self.folders.get(submission)
        return submission, label


def add_paths(store: Store, paths: list[str], *, label: str | None = None, boilerplate: bool = False,
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
    walked = _walk(paths)
    files: list[tuple[Path, Path | None]] = []
    own = _index_files(store.path)
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
    placed = _Placement(store, [str(f) for f, _ in files], label, submission_depth)
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
        with store.bulk_writes(), _prepared_stream(tasks, jobs if jobs is not None else default_jobs(),
                                                   sum(sizes.values()), store.con) as stream, writer:
            for task, submission, label, prep in zip(tasks, submissions, labels, stream):
                spath = task[0]
                old = existing.get(spath)
                if prep.status == "big":  # left to this process by a worker: read it (once) here
                    prep = _prepare_task(task)
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
                        summary.fingerprints += segmented.add_huge(store, src, settings, dict(
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
