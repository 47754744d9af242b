"""Compare sources pairwise: the passages two files or submissions share, and their scores.

One comparison needs each side's fingerprints and texts, and which of their hashes count
(boilerplate and hashes in more than ``max_df`` submissions do not: ``sql/countable_hashes.sql``,
the only step that reads the whole fingerprints table). ``compare_many`` does that work once for
many pairs -- every indexed side read in one query, the countable hashes of all sides found in one
scan -- so a report of 50 pairs costs about what one comparison does; each pair's matches are
then a join of two small relations (``sql/passage_matches.sql``), merged into passages in Python
and, for text, grown to the edges of the shared words (``passages.extend_passages``: the two
text documents of a pair are normalized again for that).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import numpy as np

from .sqlfiles import registered

if TYPE_CHECKING:
    from .index import Comparison, Index, Side

__all__ = ["compare_many", "read_sides"]

#: text documents longer than this are not normalized again to grow passages (memory: about 40
#: bytes per character, for the two documents of one pair at a time); their passages keep the
#: spans of their outermost matches
EXTEND_MAX_CHARS = 5_000_000

_FP_COLUMNS = ("hash", "doc", "pos", "start_offset", "end_offset")


def read_sides(idx: "Index", sources: Iterable[str | os.PathLike], language: str | None = None) -> dict[str, "Side"]:
    """Each source's ``Side`` (keyed by ``str(source)``): indexed files and submissions read
    together, one query for their documents' texts and one for their fingerprints; a source that
    is not indexed is fingerprinted from its file (``Index._file_side``)."""
    from .index import Side
    from .sources import require_storable_name

    wanted = {str(s): str(Path(s).resolve()) for s in sources}
    for resolved in wanted.values():
        require_storable_name(resolved)
    con = idx.store.con
    names = sorted(set(wanted.values()))
    rows = con.execute("SELECT doc, path, submission, chars FROM documents WHERE kind = 'document' AND "
                       "(path IN (SELECT UNNEST(?::VARCHAR[])) OR submission IN (SELECT UNNEST(?::VARCHAR[]))) "
                       "ORDER BY path", [names, names]).fetchall()
    members: dict[str, list[tuple[int, str]]] = {}
    for doc, path, submission, _ in rows:
        for key in {path, submission}:
            members.setdefault(key, []).append((doc, path))
    ids = sorted({doc for doc, *_ in rows})
    texts: dict[int, str] = {}
    fps = {c: np.empty(0, dtype=np.int64) for c in _FP_COLUMNS}
    if ids:
        # the range lets DuckDB skip the row groups of other documents (rows are stored in
        # document order); the list keeps exactly these documents
        where = "doc BETWEEN ? AND ? AND doc IN (SELECT UNNEST(?::INTEGER[]))"
        bounds = [ids[0], ids[-1], ids]
        texts = dict(con.execute(f"SELECT doc, text FROM document_texts WHERE {where}", bounds).fetchall())
        got = con.execute(f"SELECT {', '.join(_FP_COLUMNS)} FROM fingerprints WHERE {where} ORDER BY doc",
                          bounds).fetchnumpy()
        fps = {c: np.asarray(got[c]) for c in _FP_COLUMNS}
    # a document with characters but no text: ``import`` kept no text for it (``Side.unstored``)
    unstored = {doc for doc, _, _, chars in rows if chars > 0 and not texts.get(doc)}
    sides: dict[str, Side] = {}
    for source, resolved in wanted.items():
        docs = members.get(resolved)
        if not docs:
            sides[source] = idx._file_side(source, language)
            continue
        doc_ids = np.array(sorted(d for d, _ in docs), dtype=fps["doc"].dtype)
        lo = np.searchsorted(fps["doc"], doc_ids, side="left")
        hi = np.searchsorted(fps["doc"], doc_ids, side="right")
        take = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)]) if len(doc_ids) else np.empty(0, int)
        sides[source] = Side(source, {d: texts.get(d, "") for d, _ in docs}, dict(docs),
                             {c: fps[c][take] for c in _FP_COLUMNS},
                             frozenset(d for d, _ in docs if d in unstored))
    return sides


def compare_many(idx: "Index", pairs: list[tuple[str | os.PathLike, str | os.PathLike]], *,
                 max_df: int | None = None, language: str | None = None) -> list["Comparison"]:
    """``Index.compare`` for each pair, in order, sharing the reading of sides and the one scan
    that finds which hashes count."""
    from .index import Comparison
    from .passages import extend_passages, merge_matches

    if not pairs:
        return []
    cap = idx._max_df(max_df)
    sides = read_sides(idx, [s for pair in pairs for s in pair], language)
    distinct = {key: np.unique(side.fingerprints["hash"]) for key, side in sides.items()}
    con = idx.store.con
    with registered(con, side_hashes={"hash": np.unique(np.concatenate(list(distinct.values())))}):
        counted = np.sort(np.asarray(idx.store.run("countable_hashes", max_df=cap).fetchnumpy()["hash"]))
    counts = {key: int(np.isin(h, counted, assume_unique=True).sum()) for key, h in distinct.items()}
    out = []
    texts = _TextSides(idx, sides, idx._language(language))
    with registered(con, counted_hashes={"hash": counted}):
        for a, b in pairs:
            sa, sb = sides[str(a)], sides[str(b)]
            with registered(con, left_fingerprints=sa.fingerprints, right_fingerprints=sb.fingerprints):
                cur = idx.store.run("passage_matches")
                cols = [d[0] for d in cur.description]
                tbl = cur.fetchnumpy()
            matches = {c: np.asarray(tbl[c]) for c in cols}
            shared = int(np.unique(matches["hash"]).shape[0])
            na, nb = counts[str(a)], counts[str(b)]
            score = {"shared": shared,
                     "containment_a": shared / na if na else 0.0,
                     "containment_b": shared / nb if nb else 0.0,
                     "resemblance": shared / (na + nb - shared) if na + nb - shared else 0.0}
            passages = merge_matches(matches, idx.w)
            if passages:
                passages = extend_passages(passages, texts.edges(sa, {p.doc_a for p in passages}),
                                           texts.edges(sb, {p.doc_b for p in passages}))
            out.append(Comparison(sa, sb, passages, score))
    return out


#: characters of text whose ``TextEdges`` are kept for the next pairs (a side in many pairs of a
#: report is normalized once); the least recently used are dropped beyond it (~40 bytes a character)
EDGES_CACHE_CHARS = 10_000_000


class _TextSides:
    """Which documents of the compared sides are text (the only ones whose passages are grown:
    code tokens and words are whole units, so their passages never end mid-word), and their
    ``passages.TextEdges``, kept in a cache bounded by ``EDGES_CACHE_CHARS``."""

    def __init__(self, idx: "Index", sides: dict, language: str | None = None) -> None:
        from .normalizers import choose_normalizer

        self.settings = idx.store.settings
        ids = sorted({d for s in sides.values() for d in s.texts if d >= 0})
        names = dict(idx.store.con.execute(
            "SELECT doc, normalizer FROM documents WHERE doc IN (SELECT UNNEST(?::INTEGER[]))", [ids]).fetchall()) \
            if ids else {}
        self.text_docs = {d: name for d, name in names.items() if name in ("text", "prose")}
        self.text_files = {}  # names of the sides that are a text file not indexed (doc -1): normalizer
        for side in sides.values():
            if -1 in side.texts:
                family, _ = choose_normalizer(self.settings, side.paths[-1], language)
                if family in ("text", "prose"):
                    self.text_files[side.name] = family
        from collections import OrderedDict

        self._cache: OrderedDict = OrderedDict()  # (side name or "", doc) -> (chars, TextEdges)
        self._chars = 0

    def edges(self, side, docs: set[int]) -> dict:
        """doc id -> ``TextEdges`` of those of ``side``'s documents ``docs`` that are text (and not
        longer than EXTEND_MAX_CHARS)."""
        from .indexer import kgram_window, normalize_as
        from .passages import TextEdges

        k, w = kgram_window("text", self.settings)
        out = {}
        for doc, text in side.texts.items():
            if doc not in docs or len(text) > EXTEND_MAX_CHARS or \
                    not (doc in self.text_docs if doc >= 0 else side.name in self.text_files):
                continue
            key = ("" if doc >= 0 else side.name, doc)
            if key in self._cache:
                self._cache.move_to_end(key)
            else:
                name = self.text_docs[doc] if doc >= 0 else self.text_files[side.name]
                self._cache[key] = (len(text), TextEdges(text, normalize_as(text, name), k, w))
                self._chars += len(text)
                while self._chars > EDGES_CACHE_CHARS and len(self._cache) > 1:
                    self._chars -= self._cache.popitem(last=False)[1][0]
            out[doc] = self._cache[key][1]
        return out
