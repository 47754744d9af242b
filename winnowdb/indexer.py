"""The ``add`` pipeline: sources -> normalize -> fingerprint -> store, in committed batches.

Files are read, skipped when unchanged (same content hash, kind, label and submission),
normalized, fingerprinted and written to the index in batches of a few megabytes, each batch one
transaction. An interruption (Ctrl-C, a kill) loses at most the batch in flight; running the same
``add`` again finishes the job.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from .fingerprint import fingerprint
from .codetokens import normalize_code
from .languages import language_for
from .normalize import normalize_text, normalize_words
from .simhash import document_simhash
from .sources import Skipped, Source, iter_files, read_source
from . import segmented  # reliability (issue 4): huge documents
from .store import Store, deferred_interrupt

__all__ = ["AddSummary", "add_paths", "fingerprint_source", "NORMALIZERS"]

#: normalizer settings an index can be created with
NORMALIZERS = ("auto", "text", "words", "code")
_SALT = {"text": 0, "words": 0x11, "code": 0x22}


def choose_normalizer(setting: str, path: str | None, language: str | None = None) -> tuple[str, str | None]:
    """(family, language) for one file: ``auto`` picks code for known code extensions, else text.

    ``language`` forces the programming language (for files whose extension does not say).
    """
    if setting in ("text", "words"):
        return setting, None
    lang = language or (language_for(path) if path else None)
    if lang is not None:
        return "code", lang
    if setting == "code":
        raise ValueError(f"{path}: cannot tell the programming language (use --language)")
    return "text", None

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

    Code is tokenized (k and w count tokens: settings code_k, code_w); text is folded to letters
    and digits (k and w count characters) or, with the words normalizer, to words.
    ``every_kgram`` keeps the hash of every k-gram instead of winnowing. Boilerplate is stored
    that way: in a document that embeds the boilerplate, windows near its edges can select
    boilerplate k-grams that winnowing the boilerplate file alone would not, and those must still
    be recognised as boilerplate.
    """
    family, lang = choose_normalizer(settings.get("normalizer", "text"), path, language)
    if family == "code":
        norm = normalize_code(text, lang)
        k, w = int(settings.get("code_k", settings["k"])), int(settings.get("code_w", settings["w"]))
        name = f"code:{lang}"
    else:
        norm = normalize_words(text) if family == "words" else normalize_text(text)
        k, w = int(settings["k"]), int(settings["w"])
        name = family
    selection = "all" if every_kgram else settings.get("selection", "winnow")
    fps = fingerprint(norm, k, w, salt=_SALT[family], selection=selection, m=int(settings.get("mod_m", 1)))
    return name, norm, fps


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


class _Batch:
    def __init__(self) -> None:
        self.docs: list[dict] = []
        self.texts: list[str] = []
        self.fps: list = []
        self.replaced: list[int] = []
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.docs)

    def tables(self):
        import pyarrow as pa

        docs = pa.table({
            "doc": pa.array([d["doc"] for d in self.docs], pa.int32()),
            "path": [d["path"] for d in self.docs],
            "submission": [d["submission"] for d in self.docs],
            "label": pa.array([d["label"] for d in self.docs], pa.string()),
            "kind": [d["kind"] for d in self.docs],
            "normalizer": [d["normalizer"] for d in self.docs],
            "content_hash": [d["content_hash"] for d in self.docs],
            "normalized_hash": [d["normalized_hash"] for d in self.docs],
            "encoding": [d["encoding"] for d in self.docs],
            "bytes": pa.array([d["bytes"] for d in self.docs], pa.int64()),
            "chars": pa.array([d["chars"] for d in self.docs], pa.int64()),
            "units": pa.array([d["units"] for d in self.docs], pa.int64()),
            "fingerprints": pa.array([d["fingerprints"] for d in self.docs], pa.int64()),
            "simhash": pa.array([d["simhash"] for d in self.docs], pa.int64()),
            "added_at": pa.array([d["added_at"] for d in self.docs], pa.timestamp("us")),
        })
        texts = pa.table({"doc": docs.column("doc"), "text": self.texts})
        if self.fps:
            ids = np.concatenate([np.full(len(f), d["doc"], dtype=np.int32) for d, f in zip(self.docs, self.fps)])
            fps = pa.table({
                "hash": np.concatenate([f.hash for f in self.fps]),
                "doc": ids,
                "pos": np.concatenate([f.pos for f in self.fps]).astype(np.int32),
                "start_offset": np.concatenate([f.start for f in self.fps]).astype(np.int32),
                "end_offset": np.concatenate([f.stop for f in self.fps]).astype(np.int32),
            })
        else:
            fps = pa.table({"hash": pa.array([], pa.int64()), "doc": pa.array([], pa.int32()),
                            "pos": pa.array([], pa.int32()), "start_offset": pa.array([], pa.int32()),
                            "end_offset": pa.array([], pa.int32())})
        return docs, texts, fps


def add_paths(store: Store, paths: list[str], *, label: str | None = None, boilerplate: bool = False,
              submission_depth: int | None = None, language: str | None = None,
              on_start: Callable[[int, int], None] | None = None,
              on_file: Callable[[str, int], None] | None = None) -> AddSummary:
    """Index every file under ``paths``; returns what was done (also when interrupted).

    ``on_start(files, total_bytes)`` and ``on_file(path, size)`` report progress.
    """
    t0 = time.perf_counter()
    summary = AddSummary()
    kind = "boilerplate" if boilerplate else "document"
    walked = _walk(paths)
    files: list[tuple[Path, Path | None]] = []
    for item, root in walked:
        if isinstance(item, Skipped):
            summary.skipped.append(item)
        else:
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
    meta = {r[0]: r[1:] for r in store.con.execute(
        "SELECT path, label, submission FROM documents").fetchall()} if existing else {}
    next_id = store.next_doc_id()
    batch = _Batch()
    settings = store.settings

    def flush() -> None:
        nonlocal batch
        if len(batch) == 0:
            return
        docs, texts, fps = batch.tables()
        with deferred_interrupt():  # reliability (issue 4): Ctrl-C waits until commit + count are done
            store.write_batch(docs, texts, fps, batch.replaced)
            summary.batches += 1
            for d in batch.docs:
                if d["replaces"] is None:
                    summary.added += 1
                else:
                    summary.updated += 1
            summary.fingerprints += fps.num_rows
            summary.bytes += batch.bytes
            batch = _Batch()

    try:
        for path, root in files:
            spath = str(path)
            src = read_source(path)
            if isinstance(src, Skipped):
                summary.skipped.append(src)
                if on_file:
                    on_file(spath, sizes[path])
                continue
            submission = _submission_of(path, root, submission_depth)
            old = existing.get(spath)
            if old is not None:
                old_doc, old_hash, old_kind = old
                old_label, old_sub = meta.get(spath, (None, None))
                if old_hash == src.content_hash and old_kind == kind and old_label == label \
                        and old_sub == submission:
                    summary.unchanged += 1
                    if on_file:
                        on_file(spath, sizes[path])
                    continue
            # -- reliability (issue 4): a huge document is fingerprinted and stored in segments, in
            # its own transaction, so memory stays bounded (see winnowdb/segmented.py) --
            if segmented.is_huge(src.text, settings, spath, language):
                flush()
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
                if on_file:
                    on_file(spath, sizes[path])
                continue
            # -- end reliability --
            try:
                normalizer, norm, fps = fingerprint_source(src.text, settings, path=spath, language=language,
                                                           every_kgram=boilerplate)
            except ValueError as exc:
                summary.skipped.append(Skipped(spath, str(exc).split(": ", 1)[-1]))
                continue
            batch.docs.append(dict(
                doc=next_id, path=spath, submission=submission, label=label, kind=kind,
                normalizer=normalizer, content_hash=src.content_hash,
                normalized_hash=hashlib.blake2b(norm.units.tobytes(), digest_size=16).hexdigest(),
                encoding=src.encoding, bytes=src.size, chars=len(src.text), units=len(norm),
                fingerprints=len(fps), added_at=_dt.datetime.now(),
                simhash=document_simhash(src.text, norm if normalizer == "text" else None),
                replaces=old[0] if old is not None else None))
            if old is not None:
                batch.replaced.append(old[0])
            batch.texts.append(src.text)
            batch.fps.append(fps)
            batch.bytes += src.size
            next_id += 1
            if on_file:
                on_file(spath, sizes[path])
            if batch.bytes >= BATCH_BYTES or len(batch) >= BATCH_DOCS:
                flush()
        flush()
    except KeyboardInterrupt:
        summary.interrupted = True
    summary.seconds = time.perf_counter() - t0
    return summary
