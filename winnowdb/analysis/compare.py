"""Compare sources pairwise: the passages two files or submissions share, and their scores.

One comparison needs each side's fingerprints and texts (``sides.Reader``), and which of their hashes count
(boilerplate and hashes in more than ``max_df`` submissions do not: ``sql/countable_hashes.sql``,
the only step that reads the whole fingerprints table). ``compare_many`` does that work once for
many pairs -- every indexed side read in one query, the countable hashes of all sides found in one
scan -- so a report of 50 pairs costs about what one comparison does; each pair's matches are
then a join of two small relations (``sql/passage_matches.sql``), merged into passages in Python
and, for text, grown to the edges of the shared words (``passages.extend_passages``: the two
text documents of a pair are normalized again for that). Each comparison carries the evidence
behind its pair score: for code, the two sides' text families compared as a query's with a hit's
(``sql/text_evidence.sql``) and their names, literals and comments compared apart (``_Kinds``),
and for every pair the share of each side the passages cover.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..normalize import normalize_as
from ..store.stats import common_floor
from .passages import Passage, TextEdges, extend_passages, merge_matches
from .sides import Reader, Side

__all__ = ["Comparison", "compare_many", "EXTEND_MAX_CHARS", "EDGES_CACHE_CHARS"]

#: text documents longer than this are not normalized again to grow passages (memory: about 40
#: bytes per character, for the two documents of one pair at a time); their passages keep the
#: spans of their outermost matches
EXTEND_MAX_CHARS = 5_000_000



@dataclass
class Comparison:
    """Two sides and the passages they share, with their scores (shared, containment_a,
    containment_b, resemblance, text_containment, score: the pair score of docs/score.md), the
    share of each side's characters the passages cover (coverage_a, coverage_b), and for code the
    evidence by kind (identifiers_literals, comments_docstrings: ``_Kinds``; None for text)."""

    a: Side
    b: Side
    passages: list[Passage]
    score: dict


def compare_many(reader: Reader, pairs: list[tuple[str | os.PathLike, str | os.PathLike]], *,
                 max_df: int | None = None, language: str | None = None) -> list[Comparison]:
    """``Index.compare`` for each pair, in order, sharing the reading of sides and the one scan
    that finds which hashes count."""
    if not pairs:
        return []
    store = reader.store
    cap = reader.max_df(max_df)
    sides = reader.sides([s for pair in pairs for s in pair], language)
    distinct = {key: np.unique(side.fingerprints["hash"]) for key, side in sides.items()}
    with store.relations(side_hashes={"hash": np.unique(np.concatenate(list(distinct.values())))}):
        counted = np.sort(store.columns("countable_hashes", max_df=cap, common_floor=common_floor(store))["hash"])
    counts = {key: int(np.isin(h, counted, assume_unique=True).sum()) for key, h in distinct.items()}
    out = []
    texts = _TextSides(reader, sides, reader.language(language))
    _, w = reader.settings.kw("text")
    with store.relations(counted_hashes={"hash": counted}):
        for a, b in pairs:
            sa, sb = sides[str(a)], sides[str(b)]
            with store.relations(left_fingerprints=sa.fingerprints, right_fingerprints=sb.fingerprints):
                matches = store.columns("passage_matches")
            shared = int(np.unique(matches["hash"]).shape[0])
            na, nb = counts[str(a)], counts[str(b)]
            score = {"shared": shared,
                     "containment_a": shared / na if na else 0.0,
                     "containment_b": shared / nb if nb else 0.0,
                     "resemblance": shared / (na + nb - shared) if na + nb - shared else 0.0}
            passages = merge_matches(matches, w)
            if passages:
                passages = extend_passages(passages, texts.edges(sa, {p.doc_a for p in passages}),
                                           texts.edges(sb, {p.doc_b for p in passages}))
            out.append(Comparison(sa, sb, passages, score))
    text = _text_evidence(reader, [(sides[str(a)], sides[str(b)]) for a, b in pairs], cap, language)
    kinds = _Kinds(texts)
    for i, cmp in enumerate(out):
        cmp.score.update(_evidence(cmp, *text.get(i, (None, None))))
        cmp.score.update(kinds.compare(cmp.a, cmp.b))
    return out


def _evidence(cmp: Comparison, text_containment: float | None, t: float | None) -> dict:
    """Why the pair scores as it does (docs/score.md): the text family's containment (code: its
    identifiers, literals and comments; None for text), the pair score, and the share of each
    side's characters inside a shared passage."""
    s = max(cmp.score["containment_a"], cmp.score["containment_b"])
    return {"text_containment": text_containment,
            "score": round(max(s ** 4 * (0.9 + 0.1 * t), t), 9) if t is not None else s,
            "coverage_a": _coverage(cmp.a, [(p.doc_a, p.start_a, p.end_a) for p in cmp.passages]),
            "coverage_b": _coverage(cmp.b, [(p.doc_b, p.start_b, p.end_b) for p in cmp.passages])}


def _text_evidence(reader: Reader, pairs: list[tuple[Side, Side]], cap: int,
                   language: str | None) -> dict[int, tuple[float, float]]:
    """pair index -> (text_containment, T) for the pairs whose two sides both have a text family:
    ``sql/text_evidence.sql``, all pairs in one query (the same as a query's hits get)."""
    families = reader.text_families([side for pair in pairs for side in pair], language)
    code = [i for i in range(len(pairs)) if families[2 * i].shape[0] and families[2 * i + 1].shape[0]]
    if not code:
        return {}

    def stacked(which: int) -> dict:
        ids = [np.full(families[2 * i + which].shape[0], i, dtype=np.int32) for i in code]
        return {"id": np.concatenate(ids), "hash": np.concatenate([families[2 * i + which] for i in code])}

    a, b = stacked(0), stacked(1)
    ids = np.array(code, dtype=np.int32)
    with reader.store.relations(query_text_hashes={"qid": a["id"], "hash": a["hash"]},
                                hit_text_hashes={"sub": b["id"], "hash": b["hash"]},
                                text_pairs={"qid": ids, "sub": ids}):
        rows = reader.store.rows("text_evidence", max_df=cap)
    return {int(qid): (float(tc), float(t)) for qid, _, tc, t in rows}


class _Kinds:
    """The evidence of a code pair by kind, beside the structure (the code tokens) and the
    verbatim text (the text family) the score uses: how much of the names and literals, and of
    the comments and docstrings, the two sides share (``normalize.code.code_parts``). Each the
    larger containment of the two sides' distinct items: identifiers and literals as written;
    comments as word trigrams, lower-cased. None where a side has no code, or none of that kind.
    Each side is split once per ``compare_many`` (a side in many pairs of a report)."""

    def __init__(self, texts: "_TextSides") -> None:
        self.texts = texts
        self._parts: dict[str, tuple[set, set] | None] = {}

    def compare(self, a: Side, b: Side) -> dict:
        pa, pb = self._of(a), self._of(b)
        if pa is None or pb is None:
            return {"identifiers_literals": None, "comments_docstrings": None}
        return {"identifiers_literals": _larger_containment(pa[0], pb[0]),
                "comments_docstrings": _larger_containment(pa[1], pb[1])}

    def _of(self, side: Side) -> tuple[set, set] | None:
        if side.name not in self._parts:
            import re

            from ..normalize.code import code_parts

            names, comment_words, code = set(), [], False
            for doc, text in side.texts.items():
                lang = self.texts.language(side, doc)
                if lang is None:
                    continue
                code = True
                parts = code_parts(text, lang)
                names.update(parts.identifiers)
                names.update(parts.literals)
                comment_words += re.findall(r"\w+", " ".join(parts.comments).lower())
            trigrams = set(zip(comment_words, comment_words[1:], comment_words[2:]))
            self._parts[side.name] = (names, trigrams) if code else None
        return self._parts[side.name]


def _larger_containment(a: set, b: set) -> float | None:
    """|a & b| over the smaller of the two; None when either is empty."""
    if not a or not b:
        return None
    return len(a & b) / min(len(a), len(b))


def _coverage(side: Side, spans: list[tuple[int, int, int]]) -> float | None:
    """The share of a side's characters inside at least one of ``spans`` (doc, start, end), over
    its documents whose passages can be placed (not ``Side.hidden``); None when it has none."""
    hidden = side.hidden
    total = sum(len(text) for doc, text in side.texts.items() if doc not in hidden)
    spans = [s for s in spans if s[0] not in hidden]
    if not total:
        return None if hidden else 0.0
    covered = 0
    for doc in {d for d, _, _ in spans}:
        end_so_far = 0
        for _, start, end in sorted(x for x in spans if x[0] == doc):
            start = max(start, end_so_far)
            if end > start:
                covered += end - start
                end_so_far = end
    return covered / total


#: characters of text whose ``TextEdges`` are kept for the next pairs (a side in many pairs of a
#: report is normalized once); the least recently used are dropped beyond it (~40 bytes a character)
EDGES_CACHE_CHARS = 10_000_000


class _TextSides:
    """Which documents of the compared sides are text (the only ones whose passages are grown:
    code tokens and words are whole units, so their passages never end mid-word), and their
    ``passages.TextEdges``, kept in a cache bounded by ``EDGES_CACHE_CHARS``."""

    def __init__(self, reader: Reader, sides: dict, language: str | None = None) -> None:
        from ..ingest.document import choose_normalizer

        self.settings = reader.settings
        names = {d: name for s in sides.values() for d, name in s.normalizers.items() if d >= 0}
        self.text_docs = {d: name for d, name in names.items() if name in ("text", "prose")}
        self.code_docs = {d: name.split(":", 1)[1] for d, name in names.items() if name.startswith("code:")}
        self.text_files = {}  # names of the sides that are a text file not indexed (doc -1): normalizer
        self.code_files = {}  # names of the sides that are a code file not indexed: its language
        for side in sides.values():
            if -1 in side.texts:
                family, lang = choose_normalizer(self.settings, side.paths[-1], language)
                if family in ("text", "prose"):
                    self.text_files[side.name] = family
                elif family == "code" and lang:
                    self.code_files[side.name] = lang
        from collections import OrderedDict

        self._cache: OrderedDict = OrderedDict()  # (side name or "", doc) -> (chars, TextEdges)
        self._chars = 0

    def language(self, side, doc: int) -> str | None:
        """The programming language of one of ``side``'s documents; None for text."""
        return self.code_docs.get(doc) if doc >= 0 else self.code_files.get(side.name)

    def edges(self, side, docs: set[int]) -> dict:
        """doc id -> ``TextEdges`` of those of ``side``'s documents ``docs`` that are text (and not
        longer than EXTEND_MAX_CHARS)."""
        k, w = self.settings.kw("text")
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
