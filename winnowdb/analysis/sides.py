"""The read path over one open index: the sides of a comparison, their fingerprints, the max-df in use.

A *side* is what one argument of ``query``, ``compare`` or a report pair names: an indexed file,
an indexed submission (its documents together), or a file that is not indexed (read and
fingerprinted here under the index's settings, exactly as ``add`` would). ``Reader`` gives every
analysis the same answers about them:

* ``sides`` / ``side``: texts, paths, normalizers and fingerprint rows of each side, and the
  submission it is in (which a query of it does not find). Indexed sides are read together: one
  query for their documents, one for their texts; their fingerprints are computed again from
  those texts (``document_fingerprints``);
* ``max_df``: the cap on document frequency in force (the given one, or the index's default);
* ``text_families``: the sides' code text families (the second evidence of the pair score);
* ``language``: a ``--language`` name as files of that language are stored.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable

from ..errors import WinnowError

__all__ = ["Side", "Reader", "FINGERPRINT_COLUMNS", "INDEXED_LOOKUPS"]

#: the columns of a side's fingerprint rows: the fingerprints table's, and each k-gram's span in
#: the original text (characters, end exclusive), which fingerprinting the text gives
FINGERPRINT_COLUMNS = ("hash", "doc", "pos", "start_offset", "end_offset")
#: up to this many sides' paths are looked up one by one through the index of documents.path
#: (about half a millisecond each, whatever the index's size); more are found with one scan
INDEXED_LOOKUPS = 32


@dataclass
class Side:
    """One side of a comparison: a display name, its documents' texts, and fingerprint rows.

    ``texts``, ``paths`` and ``normalizers`` are keyed by doc id (-1 for a file that is not
    indexed); ``fingerprints`` holds numpy columns (``FINGERPRINT_COLUMNS``). ``unstored``: its
    documents whose text the index does not hold (``import`` of an export without texts stores an
    empty one): their scores count, their passages cannot be shown. ``unplaced``: its documents
    whose rows were read as stored, so their spans are unknown: code of an older tokenizer (until
    ``winnowdb upgrade``), or a stored text of another length than the one indexed (damage
    ``winnowdb check`` reports); the same. ``submission``: the indexed submission the source is a file
    of, or names; None for a file that is not indexed."""

    name: str
    texts: dict[int, str]
    paths: dict[int, str]
    fingerprints: dict
    unstored: frozenset = field(default_factory=frozenset)
    normalizers: dict[int, str] = field(default_factory=dict)
    submission: str | None = None
    unplaced: frozenset = field(default_factory=frozenset)

    @cached_property
    def hidden(self) -> frozenset:
        """Its documents whose passages cannot be shown (``unstored`` and ``unplaced``)."""
        return self.unstored | self.unplaced


class Reader:
    """The read path over an open ``store.database.Store`` (light: commands that only run SQL,
    such as ``pairs``, never load numpy through it; ``stats`` does to show its common
    fingerprints' text)."""

    def __init__(self, store) -> None:
        self.store = store
        self._exact: bool | None = None

    @property
    def settings(self):
        return self.store.settings

    def max_df(self, given: int | None = None) -> int:
        """The cap on document frequency in force: ``given`` when positive, else the index's
        default (``store.stats``: remembered by the last write)."""
        if given is None or given <= 0:
            return self.store.default_max_df()
        return int(given)

    def language(self, language: str | None) -> str | None:
        """``language`` by the name files of that language get, or a one-line error
        (``ingest.languages.forced_language``: an unknown name, or an index reading all as text)."""
        if language is None:
            return None
        from ..ingest.languages import forced_language

        try:
            return forced_language(language, self.settings.get("normalizer", "text"))
        except ValueError as exc:
            raise WinnowError(str(exc)) from None

    def side(self, source: str | os.PathLike, language: str | None = None) -> Side:
        """The ``Side`` of one source (see ``sides``)."""
        return self.sides([source], language)[str(source)]

    def sides(self, sources: Iterable[str | os.PathLike], language: str | None = None) -> dict[str, Side]:
        """Each source's ``Side`` (keyed by ``str(source)``): indexed files and submissions read
        together, one query for their documents' texts and one for their fingerprints; a source
        that is not indexed is fingerprinted from its file (``file_side``)."""
        import numpy as np

        from ..ingest.read import require_storable_name

        wanted = {str(s): str(Path(s).resolve()) for s in sources}
        for resolved in wanted.values():
            require_storable_name(resolved)
        store = self.store
        rows = self._side_documents(sorted(set(wanted.values())))
        members: dict[str, list[tuple[int, str]]] = {}
        submission_at: dict[str, str] = {}  # a resolved name -> the submission it is a file of, or names
        for doc, path, submission, _, _ in rows:
            for key in {path, submission}:
                members.setdefault(key, []).append((doc, path))
            submission_at[path] = submission
            submission_at.setdefault(submission, submission)
        normalizer_of = {doc: normalizer for doc, _, _, _, normalizer in rows}
        ids = sorted({doc for doc, *_ in rows})
        texts: dict[int, str] = {}
        fps = {c: np.empty(0, dtype=np.int64) for c in FINGERPRINT_COLUMNS}
        if ids:
            with store.relations(side_docs={"doc": np.array(ids, dtype=np.int32)}):
                texts = dict(store.rows("side_texts", low=ids[0], high=ids[-1]))
            info = {doc: (path, texts.get(doc, ""), chars, normalizer) for doc, path, _, chars, normalizer in rows}
            fps = self.document_fingerprints([(doc, *info[doc]) for doc in ids])
        # a document with characters but no text: ``import`` kept no text for it (``Side.unstored``)
        unstored = {doc for doc, _, _, chars, _ in rows if chars > 0 and not texts.get(doc)}
        unplaced = set(fps["doc"][fps["start_offset"] < 0].tolist()) - unstored
        sides: dict[str, Side] = {}
        for source, resolved in wanted.items():
            docs = members.get(resolved)
            if not docs:
                sides[source] = self.file_side(source, language)
                continue
            doc_ids = np.array(sorted(d for d, _ in docs), dtype=fps["doc"].dtype)
            lo = np.searchsorted(fps["doc"], doc_ids, side="left")
            hi = np.searchsorted(fps["doc"], doc_ids, side="right")
            take = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)]) if len(doc_ids) else np.empty(0, int)
            sides[source] = Side(source, {d: texts.get(d, "") for d, _ in docs}, dict(docs),
                                 {c: fps[c][take] for c in FINGERPRINT_COLUMNS},
                                 frozenset(d for d, _ in docs if d in unstored),
                                 {d: normalizer_of[d] for d, _ in docs}, submission_at.get(resolved),
                                 frozenset(d for d, _ in docs if d in unplaced))
        return sides

    def _side_documents(self, names: list[str]) -> list[tuple]:
        """(doc, path, submission, chars, normalizer) of the ordinary documents the resolved ``names`` make up,
        by path: files named by their path, found through the index of paths (a few names) or one
        scan (many); then, by name, submissions named by a name that is neither an indexed path nor
        a regular file (a file's own submission is named by its path: a name that is a file is
        never the name of other files' submission), which needs a scan of the submissions."""
        import numpy as np

        store = self.store
        if len(names) <= INDEXED_LOOKUPS:
            rows = [r for name in names for r in store.rows("side_document_at_path", name=name)]
        else:
            with store.relations(side_names={"name": np.array(names, dtype=object)}):
                rows = store.rows("side_documents_at_paths")
        found = {path for _, path, _, _, _ in rows}
        others = [n for n in names if n not in found and not os.path.isfile(n)]
        if others:
            with store.relations(side_names={"name": np.array(others, dtype=object)}):
                rows += [r for r in store.rows("side_documents_named") if r[1] not in found]
        return sorted(set(rows), key=lambda r: r[1])

    def document_fingerprints(self, docs: list[tuple[int, str, str, int, str]]) -> dict:
        """The fingerprint rows (numpy columns, ``FINGERPRINT_COLUMNS``, in the order of ``docs``)
        of indexed ordinary documents given as (doc, path, text, chars, normalizer).

        Fingerprints are stored ordered by hash (``store.runs``), so one document's rows lie all
        over the table, and without their spans in the original text (schema 7); its text, stored
        in document order, is read fast, and fingerprinting it again gives exactly the stored rows
        with their spans (the same recipe, ``ingest.document``: the documents of one normalizer in
        one pass, ``fingerprint_sources``, as ``add`` does). Where that is not so -- a text the
        index does not hold (imported without texts), code tokenized by an older tokenizer (before
        ``upgrade``) -- the stored rows are read instead, with -1 for their spans.
        """
        import numpy as np

        if not docs:
            return {c: np.empty(0, dtype=np.int64) for c in FINGERPRINT_COLUMNS}
        ids = [d for d, *_ in docs]
        exact = self._recompute_exact()
        as_stored = sorted(doc for doc, _, text, chars, name in docs
                           if len(text) != chars or (not exact and name.startswith("code:")))
        found: dict[int, Any] = {}  # doc -> its Fingerprints (or stored rows: columns without spans)
        if as_stored:
            with self.store.relations(side_docs={"doc": np.array(as_stored, dtype=np.int32)}):
                stored = self.store.columns("side_fingerprints", low=as_stored[0], high=as_stored[-1])
            lo = np.searchsorted(stored["doc"], as_stored, side="left")
            hi = np.searchsorted(stored["doc"], as_stored, side="right")
            for doc, a, b in zip(as_stored, lo, hi):
                found[doc] = (stored["hash"][a:b], stored["pos"][a:b])
        from ..ingest import segmented
        from ..ingest.document import fingerprint_sources

        batches: dict[str | None, list[tuple[int, str, str]]] = {}  # language -> its documents
        for doc, path, text, _, name in docs:
            if doc in found:
                continue
            language = name.split(":", 1)[1] if name.startswith("code:") else None
            if segmented.is_huge(text, self.settings, path, language):
                found[doc] = segmented.fingerprints_of(text, self.settings, path=path, language=language)
            else:
                batches.setdefault(language, []).append((doc, path, text))
        for language, batch in batches.items():
            done = fingerprint_sources([text for _, _, text in batch], self.settings, [path for _, path, _ in batch],
                                       language=language)
            for (doc, path, _), result in zip(batch, done):
                if isinstance(result, ValueError):  # e.g. its language's lexer is gone from this Pygments
                    raise WinnowError(f"{path}: {result}") from None
                found[doc] = result[2]
        cols: dict[str, list] = {c: [] for c in FINGERPRINT_COLUMNS}
        for doc in ids:
            fps = found[doc]
            if isinstance(fps, tuple):  # read as stored: no spans
                hashes, pos = fps
                start = stop = np.full(len(hashes), -1, dtype=np.int32)
            else:
                hashes, pos, start, stop = fps.hash, fps.pos, fps.start, fps.stop
            cols["hash"].append(hashes.astype(np.int64))
            cols["doc"].append(np.full(len(hashes), doc, dtype=np.int32))
            cols["pos"].append(pos.astype(np.int32))
            cols["start_offset"].append(start.astype(np.int32))
            cols["end_offset"].append(stop.astype(np.int32))
        return {c: np.concatenate(v) for c, v in cols.items()}

    def _recompute_exact(self) -> bool:
        """Whether fingerprinting a stored text again gives its stored rows: not when the index
        holds code of an older code tokenizer (``upgrade`` redoes it)."""
        if self._exact is None:
            from ..store.schema import stale_code_count

            self._exact = stale_code_count(self.store.connection, self.settings) == 0
        return self._exact

    def text_families(self, sides: list[Side], language: str | None = None) -> list:
        """The code text family of each side (its distinct hashes, numpy int64; the second
        evidence of the pair score): read for indexed documents, all sides' in one query
        (``document_text_hashes.sql``), computed from the text of a file that is not indexed
        (``ingest.document.code_text_hashes``). Empty for text, and in an index without the family."""
        import numpy as np

        from ..ingest.document import choose_normalizer, code_text_hashes

        empty = np.empty(0, dtype=np.int64)
        if self.settings.code_text_kw() is None:
            return [empty for _ in sides]
        docs = sorted({d for side in sides for d in side.texts  # indexed documents that may be code
                       if d >= 0 and side.normalizers.get(d, "code:").startswith("code:")})
        stored: dict = {"doc": np.empty(0, dtype=np.int32), "hash": empty}
        if docs:
            with self.store.relations(query_docs={"doc": np.array(docs, dtype=np.int32)}):
                stored = self.store.columns("document_text_hashes")
        order = np.argsort(stored["doc"], kind="stable")
        by_doc, hashes = stored["doc"][order], stored["hash"][order].astype(np.int64)
        out = []
        for side in sides:
            parts = [empty]
            for d in (d for d in side.texts if d >= 0):
                parts.append(hashes[np.searchsorted(by_doc, d, "left"):np.searchsorted(by_doc, d, "right")])
            if -1 in side.texts:
                try:
                    family, _ = choose_normalizer(self.settings, side.paths[-1], self.language(language))
                except ValueError:
                    family = ""
                computed = code_text_hashes([side.texts[-1]], self.settings) if family == "code" else None
                if computed:
                    parts.append(computed[0])
            out.append(np.unique(np.concatenate(parts)) if len(parts) > 1 else empty)  # (np.unique imports numpy.ma)
        return out

    def file_side(self, source: str | os.PathLike, language: str | None = None) -> Side:
        """The side of a file that is not indexed: read and fingerprinted under the index's settings.

        Fingerprints are numpy columns (DuckDB scans a dict of numpy arrays without importing
        pandas, which it does for any Arrow object: 0.4 s of every query or compare).
        """
        import numpy as np

        from ..ingest import segmented
        from ..ingest.document import fingerprint_source
        from ..ingest.read import read_query_file

        p = str(Path(source).resolve())
        src = read_query_file(source, if_directory="is a directory that is not an indexed submission")
        try:
            if segmented.is_huge(src.text, self.settings, p):
                fps = segmented.fingerprints_of(src.text, self.settings, path=p)
            else:
                _, _, fps = fingerprint_source(src.text, self.settings, path=p, language=self.language(language))
        except ValueError as exc:
            raise WinnowError(str(exc)) from None
        table = {"hash": fps.hash.astype(np.int64), "doc": np.full(len(fps), -1, dtype=np.int32),
                 "pos": fps.pos.astype(np.int32), "start_offset": fps.start.astype(np.int32),
                 "end_offset": fps.stop.astype(np.int32)}
        return Side(str(source), {-1: src.text}, {-1: p}, table)
