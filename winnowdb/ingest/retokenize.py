"""Re-fingerprint code that an older code tokenizer fingerprinted, from the texts the index keeps.

Code fingerprints depend on the tokenizer (``settings.CODE_TOKENS_VERSION``); an index records in its
settings the version its code was tokenized with. After a winnowdb update changes the tokenizer,
code added from then on is tokenized differently and matches the stored code less well -- this
year's submissions would silently stop matching last year's. ``retokenize_code`` (run by
``winnowdb upgrade``) redoes every code document from ``document_texts``, so the original files
are not needed. Documents are rewritten in batches that each commit, keeping their ids, paths,
submissions, labels, kinds and dates (so the stored ``clusters`` snapshot keeps naming them); the
new version is recorded only after the last batch, so an interrupted run leaves a consistent index
and is simply run again. Each batch is one transaction: the documents' old fingerprints out, the
new ones in (ordered by hash, ``store.runs``), their rows and the statistics updated.

An index imported without texts (``export`` without ``--texts``, originals gone) stores an empty
text for such documents. Their code is read back from the file at their path when its bytes still
have the stored content hash (and the text is stored from then on); otherwise the document is left
exactly as it is -- re-tokenizing an empty text would wipe its fingerprints -- it is listed in the
result, and the new version is not recorded (the index still holds older code).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..errors import WinnowError
from ..settings import CODE_TOKENS_VERSION, digest_width
from ..store.interrupts import deferred_interrupt
from ..store.runs import FingerprintRun
from ..store.schema import stale_code_count
from .document import fingerprint_source, normalized_hash
from .prepare import first_of_each_hash
from .read import lone_cr_as_lf, read_unchanged

__all__ = ["stale_code_documents", "retokenize_code", "Retokenized", "without_text_message", "BATCH_CHARS",
           "BATCH_DOCS"]

#: a batch is written once it holds this much text (characters) or this many documents
BATCH_CHARS = 8 * 1024 * 1024
BATCH_DOCS = 2000


def stale_code_documents(store) -> int:
    """How many code documents an older code tokenizer fingerprinted (0 when the index records
    this winnowdb's ``CODE_TOKENS_VERSION``; an index made before the version was recorded counts
    as older)."""
    return stale_code_count(store.connection, store.settings)


@dataclass
class Retokenized:
    """What ``retokenize_code`` did: documents fingerprinted again, and the paths of those left
    as they were because their text is neither stored nor readable unchanged from their file."""

    done: int = 0
    without_text: list[str] = field(default_factory=list)


def without_text_message(paths: list[str], done: int) -> str:
    """One line: which code documents ``retokenize_code`` had to leave, and what to do."""
    n = len(paths)
    first = paths[0] + (f" and {n - 1} more" if n > 1 else "")
    return (f"{done} code document{'s' if done != 1 else ''} fingerprinted again, but {n} kept "
            f"{'their' if n != 1 else 'its'} old fingerprints: the text is not stored in the index "
            f"(imported without texts) and the file is missing or changed ({first}); put the "
            "original files back and run upgrade again")


def retokenize_code(store, *, on_start: Callable[[int, int], None] | None = None,
                    on_doc: Callable[[str, int], None] | None = None) -> Retokenized:
    """Re-fingerprint every code document with this winnowdb's tokenizer.

    ``on_start(documents, total_chars)`` and ``on_doc(path, chars)`` report progress.
    """
    rows = store.rows("code_documents")
    if on_start:
        on_start(len(rows), sum(r[1] for r in rows))
    settings = store.settings
    result = Retokenized()
    start = 0
    while start < len(rows):
        chunk: list[int] = []
        chars = 0
        while start < len(rows) and len(chunk) < BATCH_DOCS and (not chunk or chars < BATCH_CHARS):
            chunk.append(rows[start][0])
            chars += rows[start][1]
            start += 1
        with store.relations(wanted_docs={"doc": np.array(chunk, dtype=np.int32)}):
            docs = store.rows("documents_with_texts")
        run = FingerprintRun(store)
        rewritten: dict[str, list] = {k: [] for k in ("doc", "normalizer", "normalized_hash", "units",
                                                      "fingerprints", "hashes", "text")}
        for (doc, path, _submission, _label, kind, normalizer, content_hash, _encoding, _size, _added_at,
             _simhash, chars, text) in docs:
            if len(text) != chars:  # not stored (imported without texts): the file, if unchanged
                text = read_unchanged(path, content_hash)
                if text is None:
                    result.without_text.append(path)
                    if on_doc:
                        on_doc(path, chars)
                    continue
            language = normalizer.split(":", 1)[1]
            text = lone_cr_as_lf(text)  # as files are read now (same length: offsets hold)
            # code is never stored in segments (segmented.is_huge is for text), so one pass does
            try:
                name, norm, fps = fingerprint_source(text, settings, path=path, language=language,
                                                     every_kgram=kind == "boilerplate")
            except ValueError as exc:  # e.g. its language's lexer is gone from this Pygments
                raise WinnowError(f"cannot fingerprint {path} again: {exc}") from None
            first, hashes = first_of_each_hash(fps.hash)
            run.add({"hash": fps.hash, "doc": np.full(len(fps), doc, dtype=np.int32), "pos": fps.pos}, first)
            digest = normalized_hash(norm, digest_width(settings, name))
            for key, value in (("doc", doc), ("normalizer", name), ("normalized_hash", digest),
                               ("units", len(norm)), ("fingerprints", len(fps)), ("hashes", hashes),
                               ("text", text)):
                rewritten[key].append(value)
            if on_doc:
                on_doc(path, len(text))
        if rewritten["doc"]:  # one transaction: the documents' new fingerprints, rows and statistics
            columns = {k: np.array(v, dtype=np.int32 if k == "doc" else np.int64 if k in (
                "units", "fingerprints", "hashes") else object) for k, v in rewritten.items()}
            with deferred_interrupt():
                run.finish(pending=False, rewritten=columns)
        else:
            run.close()
        result.done += len(rewritten["doc"])
    with deferred_interrupt():
        if not result.without_text:  # else the index still holds code of the older tokenizer
            store.set_setting("code_tokens_version", CODE_TOKENS_VERSION)
    return result
