"""What the HTML report shows: the ranked pairs, and per pair both sides laid out in lines.

``collect`` gathers it from an open index (the pairs as ``pairs`` ranks them, each compared, with
the boilerplate spans to grey); ``doc_lines`` cuts a document into lines of ``Piece`` s, each
knowing which passages cover it. ``html`` renders it.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Callable

from ..settings import TEXT_NORMALIZERS
from .escape import CONTROL, visible_parts
from .lines import LineIndex
from .paths import shortener

if TYPE_CHECKING:
    from ..analysis.compare import Comparison

__all__ = ["collect", "doc_lines", "settings_line", "Piece", "DocView", "PassageRow", "PairView", "ReportData",
           "COLOURS"]

#: Number of distinct passage colours (CSS classes c0..c11); passages beyond reuse them in turn.
COLOURS = 12


@dataclass
class Piece:
    """A run of one line of a document with the same marking.

    ``passages`` are the 1-based numbers of the passages covering it, innermost (latest
    started) first: the first decides the colour and where a click leads. ``boilerplate`` says
    whether it lies in a boilerplate span, ``anchor`` which passages *start* here (lowest first;
    their link anchors sit on this piece).
    """

    text: str
    passages: tuple[int, ...] = ()
    boilerplate: bool = False
    anchor: tuple[int, ...] = ()

    @property
    def plain(self) -> bool:
        """Whether the text has no control characters (and so is shown as it is)."""
        return CONTROL.search(self.text) is None

    @property
    def parts(self) -> list[tuple[str, bool]]:
        """The text to show, as (text, is_control_tag) runs (see ``visible_parts``)."""
        return visible_parts(self.text)

    @property
    def colour(self) -> str:
        return f"c{(self.passages[0] - 1) % COLOURS}" if self.passages else ""

    @property
    def classes(self) -> str:
        """CSS classes: ``m`` and a colour for a passage, ``ps`` for its start, ``bp`` boilerplate."""
        parts = ["m", self.colour] if self.passages else []
        if self.anchor:
            parts.append("ps")
        if self.boilerplate:
            parts.append("bp")
        return " ".join(parts)

    @property
    def data_p(self) -> str:
        return " ".join(str(n) for n in self.passages)


def doc_lines(text: str, passages: list[tuple[int, int, int]],
              boilerplate: list[tuple[int, int]]) -> list[list[Piece]]:
    """Split ``text`` into lines of ``Piece`` s.

    ``passages`` are (number, start, end) spans and ``boilerplate`` (start, end) spans, in
    character offsets (end exclusive). The carriage return of a CRLF line ending is dropped.
    """
    n = len(text)
    starts: dict[int, list[int]] = {}
    ends: dict[int, list[int]] = {}
    cuts = {0, n}
    for num, s, e in passages:
        s, e = max(0, min(s, n)), max(0, min(e, n))
        if e <= s:
            continue
        starts.setdefault(s, []).append(num)
        ends.setdefault(e, []).append(num)
        cuts.update((s, e))
    bp_delta: dict[int, int] = {}
    for s, e in boilerplate:
        s, e = max(0, min(s, n)), max(0, min(e, n))
        if e > s:
            bp_delta[s] = bp_delta.get(s, 0) + 1
            bp_delta[e] = bp_delta.get(e, 0) - 1
            cuts.update((s, e))
    lines: list[list[Piece]] = [[]]
    active: dict[int, int] = {}  # passage number -> where it started
    bp = 0
    order = sorted(cuts)
    for lo, hi in zip(order, order[1:]):
        for num in ends.get(lo, ()):
            active.pop(num, None)
        for num in starts.get(lo, ()):
            active[num] = lo
        bp += bp_delta.get(lo, 0)
        marks = tuple(sorted(active, key=lambda num: (-active[num], num)))
        anchor = tuple(sorted(starts.get(lo, ())))
        for j, part in enumerate(text[lo:hi].split("\n")):
            if j:
                _end_line(lines[-1])
                lines.append([])
            if part or (anchor and j == 0):
                lines[-1].append(Piece(part, marks, bp > 0, anchor if j == 0 else ()))
    if not lines[-1] and len(lines) > 1 and text.endswith("\n"):
        lines.pop()  # a final newline ends the last line; it does not start a new one
    return lines


def _end_line(line: list[Piece]) -> None:
    """Drop the carriage return of a CRLF line ending (it is not shown as a control tag)."""
    if line and line[-1].text.endswith("\r"):
        line[-1].text = line[-1].text[:-1]
        if not line[-1].text and not line[-1].anchor:
            line.pop()


@dataclass
class DocView:
    """One document of one side: its shown name and its lines."""

    doc: int
    name: str
    lines: list[list[Piece]]
    hidden: int = 0  # lines not shown (a file of a many-file side that shares nothing)
    unstored: bool = False  # the index holds no text of it (``Side.unstored``): nothing to show
    unplaced: bool = False  # its rows were read without spans (``Side.unplaced``): nothing to show


@dataclass
class PassageRow:
    """One passage for the passage list: where it lies on both sides."""

    num: int
    colour: str
    name_a: str
    lines_a: tuple[int, int] | None  # None: the text is not stored, so its lines are unknown
    name_b: str
    lines_b: tuple[int, int] | None
    chars_a: int | None  # None: its passages cannot be shown (``Side.hidden``)
    chars_b: int | None
    matches: int


@dataclass
class PairView:
    """One ranked pair: its scores, its passages, and (lazily) both sides laid out in lines."""

    rank: int
    name_a: str
    name_b: str
    score: dict
    comparison: Comparison
    spans_a: dict[int, list[tuple[int, int]]]
    spans_b: dict[int, list[tuple[int, int]]]
    short: Callable[[str], str] = field(repr=False, default=str)

    @property
    def anchor(self) -> str:
        return f"pair-{self.rank}"

    @property
    def page(self) -> str:
        return f"pair-{self.rank:03d}.html"

    @cached_property
    def passages(self) -> list[PassageRow]:
        cmp = self.comparison
        la = {d: LineIndex(t) for d, t in cmp.a.texts.items()}
        lb = {d: LineIndex(t) for d, t in cmp.b.texts.items()}
        rows = []
        for i, p in enumerate(cmp.passages, 1):
            rows.append(PassageRow(i, f"c{(i - 1) % COLOURS}",
                                   self.short(cmp.a.paths[p.doc_a]),
                                   None if p.doc_a in cmp.a.hidden else la[p.doc_a].span(p.start_a, p.end_a),
                                   self.short(cmp.b.paths[p.doc_b]),
                                   None if p.doc_b in cmp.b.hidden else lb[p.doc_b].span(p.start_b, p.end_b),
                                   None if p.doc_a in cmp.a.hidden else p.end_a - p.start_a,
                                   None if p.doc_b in cmp.b.hidden else p.end_b - p.start_b, p.matches))
        return rows

    @cached_property
    def boilerplate_chars(self) -> int:
        return sum(e - s for spans in (*self.spans_a.values(), *self.spans_b.values()) for s, e in spans)

    def side(self, which: str) -> list[DocView]:
        """The documents of side ``a`` or ``b`` with passages and boilerplate marked."""
        cmp = self.comparison
        side = cmp.a if which == "a" else cmp.b
        spans = self.spans_a if which == "a" else self.spans_b
        out = []
        for doc in sorted(side.texts, key=lambda d: side.paths[d]):
            marks = [(i, p.start_a, p.end_a) if which == "a" else (i, p.start_b, p.end_b)
                     for i, p in enumerate(cmp.passages, 1)
                     if (p.doc_a if which == "a" else p.doc_b) == doc]
            text = side.texts[doc]
            if doc in side.hidden:
                out.append(DocView(doc, self.short(side.paths[doc]), [], unstored=doc in side.unstored,
                                   unplaced=doc not in side.unstored))
                continue
            if not marks and len(side.texts) > 1:  # one file of a submission: nothing to see
                out.append(DocView(doc, self.short(side.paths[doc]), [],
                                   text.count("\n") + (not text.endswith("\n") and bool(text))))
                continue
            out.append(DocView(doc, self.short(side.paths[doc]), doc_lines(text, marks, spans.get(doc, []))))
        return out


@dataclass
class ReportData:
    """Everything a report shows."""

    index: str
    settings: dict
    options: dict
    root: str
    generated: str
    pairs: list[PairView]
    settings_line: str = ""


def settings_line(settings: dict[str, str]) -> str:
    """How the index reads documents, in one line: ``normalizer auto: prose k=22 w=12, code k=12
    w=8`` (values shown as stored, known or not)."""
    norm = settings.get("normalizer", "auto")
    parts = []
    if norm != "code":
        reads = norm if norm in TEXT_NORMALIZERS else settings.get("text_normalizer", "text")
        parts.append(f"{reads} k={settings.get('k', '?')} w={settings.get('w', '?')}")
    if norm in ("auto", "code"):
        parts.append(f"code k={settings.get('code_k', settings.get('k', '?'))} "
                     f"w={settings.get('code_w', settings.get('w', '?'))}")
    line = f"normalizer {norm}: " + ", ".join(parts)
    selection = settings.get("selection", "winnow")
    if selection != "winnow":
        line += f", selection {selection}" + (f" m={settings.get('mod_m', '?')}" if selection == "mod" else "")
    return line


def collect(reader, *, top: int = 50, min_shared: int = 1, new_label: str | None = None,
            max_df: int | None = None, min_score: float | None = None) -> ReportData:
    """The ranked pairs of an open index (its ``analysis.sides.Reader``; ranked as ``pairs``
    ranks them), each compared, with boilerplate spans."""
    from ..analysis.compare import compare_many
    from ..analysis.pairs import pairs as ranked_pairs

    store = reader.store
    rows = ranked_pairs(store, top=top, min_shared=min_shared, max_df=max_df, new_label=new_label,
                        min_score=min_score)
    used_max_df = reader.max_df(max_df)  # once: the default is counted over the whole index
    k, _ = store.settings.kw("text")
    code_k, _ = store.settings.kw("code")
    cache: dict[str, dict[int, list[tuple[int, int]]]] = {}

    def spans(side) -> dict[int, list[tuple[int, int]]]:
        """doc -> the boilerplate spans of a side's documents (one query per submission)."""
        if side.name not in cache:
            found: dict[int, list[tuple[int, int]]] = {}
            with store.relations(side_rows=side.fingerprints):
                for doc, s, e, _ in store.rows("boilerplate_spans", k=k, code_k=code_k):
                    found.setdefault(int(doc), []).append((int(s), int(e)))
            cache[side.name] = found
        return cache[side.name]

    comparisons = compare_many(reader, [(row["a"], row["b"]) for row in rows], max_df=used_max_df)
    pairs = [PairView(rank, row["a"], row["b"], row, cmp, spans(cmp.a), spans(cmp.b))
             for rank, (row, cmp) in enumerate(zip(rows, comparisons), 1)]
    everything = [p for pv in pairs for p in (pv.name_a, pv.name_b, *pv.comparison.a.paths.values(),
                                               *pv.comparison.b.paths.values())]
    root, short = shortener(everything)
    for pv in pairs:
        pv.short = short
    return ReportData(
        index=store.path, settings=dict(store.settings), settings_line=settings_line(store.settings),
        options={"top": top, "min_shared": min_shared, "new_label": new_label, "max_df": used_max_df,
                 "min_score": min_score},
        root=root, generated=_dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z").strip(),
        pairs=pairs)
