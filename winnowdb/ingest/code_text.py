"""The code documents' text family for an index that has none yet, from the texts it keeps.

An index made before the text family existed (schema 2, issue 21) has code documents whose
evidence is their code tokens alone. ``fill_code_text`` (run by ``winnowdb upgrade``) reads every
code document's stored text, computes its text family (``document.code_text_hashes``: the text
read as prose in short k-grams) and stores it, a batch of documents per transaction; then it
records the family's settings (``settings.CODE_TEXT_DEFAULTS``), which is what tells every later
add and check that the index has the family. An interrupted run records nothing: the next one
clears what it stored and starts again. A document whose text is not stored (imported without
texts) is read from its file when the file still has the stored content hash; otherwise it has no
text family, and its pairs are scored by its code tokens alone (sql/pairs.sql).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..settings import CODE_TEXT_DEFAULTS
from ..store.interrupts import deferred_interrupt
from ..store.schema import fill_text_df, write_setting
from .document import code_text_hashes
from .read import lone_cr_as_lf, read_unchanged

__all__ = ["CodeTextFilled", "fill_code_text", "needs_code_text", "BATCH_CHARS"]

#: a batch is stored once it holds this much text (characters)
BATCH_CHARS = 8 * 1024 * 1024


@dataclass
class CodeTextFilled:
    """What ``fill_code_text`` did: code documents given their text family, and those left
    without one (no stored text, file missing or changed)."""

    done: int = 0
    without_text: int = 0


def needs_code_text(store) -> bool:
    """Whether the index records nothing of the text family: made before it existed (its code
    documents have none). An index made without it (``add --no-code-text``) records 0 and 0."""
    return not all(key in store.settings for key in CODE_TEXT_DEFAULTS)


def fill_code_text(store, *, on_start: Callable[[int, int], None] | None = None,
                   on_doc: Callable[[int], None] | None = None) -> CodeTextFilled:
    """Compute and store the text family of every code document, then record its settings.

    ``on_start(documents, total_chars)`` and ``on_doc(chars)`` report progress.
    """
    result = CodeTextFilled()
    if not needs_code_text(store):
        return result
    settings = {**dict(store.settings), **{k: str(v) for k, v in CODE_TEXT_DEFAULTS.items()}}
    sources = store.rows("code_text_sources")
    if on_start:
        on_start(len(sources), sum(r[2] for r in sources))
    with store.transaction():
        store.run("code_text_clear")
    start = 0
    while start < len(sources):
        chunk: list[tuple[int, str]] = []
        chars = 0
        while start < len(sources) and (not chunk or chars < BATCH_CHARS):
            chunk.append((sources[start][0], sources[start][1]))
            chars += sources[start][2]
            start += 1
        with store.relations(wanted_docs={"doc": np.array([d for d, _ in chunk], dtype=np.int32)}):
            rows = {r[0]: r for r in store.rows("code_text_texts")}
        docs, hashes = [], []
        for every_kgram in (False, True):  # documents, then boilerplate (every k-gram kept)
            members = [d for d, kind in chunk if (kind == "boilerplate") == every_kgram and d in rows]
            texts = []
            for doc in members:
                _, path, content_hash, n, text = rows[doc]
                if len(text) != n:  # not stored (imported without texts): the file, if unchanged
                    text = read_unchanged(path, content_hash)
                    if text is None:
                        result.without_text += 1
                        continue
                texts.append(lone_cr_as_lf(text))
                docs.append(doc)
            hashes.extend(code_text_hashes(texts, settings, every_kgram=every_kgram) or [])
        if docs:
            table = {"hash": np.concatenate(hashes).astype(np.int64),
                     "doc": np.repeat(np.array(docs, dtype=np.int32), [len(h) for h in hashes])}
            with store.transaction(), store.relations(new_code_text=table):
                store.run("insert_code_text_hashes")
        result.done += len(docs)
        if on_doc:
            on_doc(chars)
    with deferred_interrupt(), store.transaction() as con:
        for key, value in CODE_TEXT_DEFAULTS.items():
            write_setting(con, key, str(value))
        fill_text_df(con)  # its document frequencies, as every write keeps them
    store.refresh_settings()
    return result
