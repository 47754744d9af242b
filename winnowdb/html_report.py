"""The HTML report: ranked pairs, and per pair both files side by side with every shared passage.

``write_report(idx, out)`` writes either one self-contained file (``out.html``: every pair on one
page) or a directory (``out/``: ``index.html`` plus one page per pair). Pages carry their CSS and
JavaScript inline and load nothing, so a report can be mailed as one attachment. Each passage has
its own colour on both sides; clicking it on one side brings its partner into view on the other.
Regions whose fingerprints are boilerplate (``sql/boilerplate_spans.sql``) are greyed.

Safety: pages are rendered by Jinja2 with autoescaping on, and document text additionally has
control and bidirectional-override characters made visible (``visible``), so hostile file contents
render as inert text. A Content-Security-Policy allows only the report's own inline script and
style (by hash), as a second line of defence.
"""
from __future__ import annotations

import base64
import bisect
import datetime as _dt
import hashlib
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Iterator

from .errors import WinnowError

__all__ = ["write_report", "collect", "render_single", "render_pages", "visible", "visible_parts",
           "doc_lines",
           "Piece", "PairView", "ReportData"]

#: Number of distinct passage colours (CSS classes c0..c11); passages beyond reuse them in turn.
COLOURS = 12
_PAGE = re.compile(r"pair-\d+\.html")

# Characters shown as a tag (``\x1b``, ``U+202E``) instead of themselves: C0 controls but tab and
# newline, DEL, C1 controls, and the bidirectional controls that can reorder how text *looks*
# ("Trojan Source"). HTML cannot carry most of them, and fonts rarely draw them.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _tag(ch: str) -> str:
    c = ord(ch)
    return f"\\x{c:02x}" if c < 0x100 else f"U+{c:04X}"


def visible(text: str) -> str:
    """``text`` with control and bidi-override characters replaced by visible tags (``\\x1b``)."""
    return _CONTROL.sub(lambda m: _tag(m.group()), text)


def visible_parts(text: str) -> list[tuple[str, bool]]:
    """``text`` as (text, is_control_tag) runs, for showing control characters as styled tags."""
    if not _CONTROL.search(text):
        return [(text, False)]
    out: list[tuple[str, bool]] = []
    last = 0
    for m in _CONTROL.finditer(text):
        if m.start() > last:
            out.append((text[last:m.start()], False))
        out.append((_tag(m.group()), True))
        last = m.end()
    if last < len(text):
        out.append((text[last:], False))
    return out


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
        return _CONTROL.search(self.text) is None

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


@dataclass
class PassageRow:
    """One passage for the passage list: where it lies on both sides."""

    num: int
    colour: str
    name_a: str
    lines_a: tuple[int, int] | None  # None: the text is not stored, so its lines are unknown
    name_b: str
    lines_b: tuple[int, int] | None
    chars_a: int
    chars_b: int
    matches: int


@dataclass
class PairView:
    """One ranked pair: its scores, its passages, and (lazily) both sides laid out in lines."""

    rank: int
    name_a: str
    name_b: str
    score: dict
    comparison: object
    spans_a: dict[int, list[tuple[int, int]]]
    spans_b: dict[int, list[tuple[int, int]]]
    short: object = field(repr=False, default=str)

    @property
    def anchor(self) -> str:
        return f"pair-{self.rank}"

    @property
    def page(self) -> str:
        return f"pair-{self.rank:03d}.html"

    @cached_property
    def passages(self) -> list[PassageRow]:
        cmp = self.comparison
        la = {d: _Lines(t) for d, t in cmp.a.texts.items()}
        lb = {d: _Lines(t) for d, t in cmp.b.texts.items()}
        rows = []
        for i, p in enumerate(cmp.passages, 1):
            rows.append(PassageRow(i, f"c{(i - 1) % COLOURS}",
                                   self.short(cmp.a.paths[p.doc_a]),
                                   None if p.doc_a in cmp.a.unstored else la[p.doc_a].span(p.start_a, p.end_a),
                                   self.short(cmp.b.paths[p.doc_b]),
                                   None if p.doc_b in cmp.b.unstored else lb[p.doc_b].span(p.start_b, p.end_b),
                                   p.end_a - p.start_a, p.end_b - p.start_b, p.matches))
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
            if doc in side.unstored:
                out.append(DocView(doc, self.short(side.paths[doc]), [], unstored=True))
                continue
            if not marks and len(side.texts) > 1:  # one file of a submission: nothing to see
                out.append(DocView(doc, self.short(side.paths[doc]), [],
                                   text.count("\n") + (not text.endswith("\n") and bool(text))))
                continue
            out.append(DocView(doc, self.short(side.paths[doc]), doc_lines(text, marks, spans.get(doc, []))))
        return out


class _Lines:
    """Line numbers of character offsets in one text (by bisecting its newline offsets)."""

    def __init__(self, text: str):
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """First and last 1-based line of text[start:end] (as ``report.passage_records``)."""
        first = bisect.bisect_left(self.newlines, start) + 1
        return first, bisect.bisect_left(self.newlines, max(start, end - 1)) + 1


@dataclass
class ReportData:
    """Everything a report shows."""

    index: str
    settings: dict
    options: dict
    root: str
    generated: str
    pairs: list[PairView]


def _shortener(paths: list[str]):
    """(common root, function giving a path relative to it) for the paths a report shows."""
    try:
        root = os.path.commonpath(paths) if paths else ""
    except ValueError:
        root = ""
    if root in paths:  # one path is a prefix of all: show names relative to its folder
        root = os.path.dirname(root)
    if not root or root == os.path.dirname(root):
        return "", str
    return root, lambda p: os.path.relpath(p, root) if p.startswith(root) else p


def collect(idx, *, top: int = 50, min_shared: int = 1, new_label: str | None = None,
            max_df: int | None = None) -> ReportData:
    """The ranked pairs of ``idx`` (as ``Index.pairs``), each compared, with boilerplate spans."""
    rows = idx.pairs(top=top, min_shared=min_shared, max_df=max_df, new_label=new_label)
    used_max_df = idx._max_df(max_df)  # once: the default is counted over the whole index
    k = idx.k
    code_k = int(idx.settings.get("code_k", k))
    cache: dict[str, dict[int, list[tuple[int, int]]]] = {}

    def spans(submission: str) -> dict[int, list[tuple[int, int]]]:
        if submission not in cache:
            found: dict[int, list[tuple[int, int]]] = {}
            for doc, s, e, _ in idx.store.run("boilerplate_spans", submission=submission, k=k,
                                                   code_k=code_k).fetchall():
                found.setdefault(int(doc), []).append((int(s), int(e)))
            cache[submission] = found
        return cache[submission]

    comparisons = idx.compare_many([(row["a"], row["b"]) for row in rows], max_df=used_max_df)
    pairs = [PairView(rank, row["a"], row["b"], row, cmp, spans(row["a"]), spans(row["b"]))
             for rank, (row, cmp) in enumerate(zip(rows, comparisons), 1)]
    everything = [p for pv in pairs for p in (pv.name_a, pv.name_b, *pv.comparison.a.paths.values(),
                                               *pv.comparison.b.paths.values())]
    root, short = _shortener(everything)
    for pv in pairs:
        pv.short = short
    return ReportData(
        index=idx.path, settings=idx.settings,
        options={"top": top, "min_shared": min_shared, "new_label": new_label, "max_df": used_max_df},
        root=root, generated=_dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z").strip(),
        pairs=pairs)


# ------------------------------------------------------------------------- rendering
def _environment():
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(loader=PackageLoader("winnowdb", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals["colours"] = COLOURS
    env.filters["pct"] = lambda v: f"{100 * float(v or 0):.1f}%"
    return env


def _assets(env) -> dict:
    """The inline CSS and JS, and a Content-Security-Policy admitting exactly them (by hash)."""
    from markupsafe import Markup

    css = env.get_template("report.css.j2").render()
    js = env.get_template("report.js.j2").render()

    def digest(s: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() + "'"

    csp = (f"default-src 'none'; style-src {digest(css)}; script-src {digest(js)}; img-src data:; "
           f"base-uri 'none'; form-action 'none'")
    # Our own static assets: they must reach the page unescaped (they contain no user data).
    return {"css": Markup(css), "js": Markup(js), "csp": csp}


def render_single(data: ReportData) -> Iterator[str]:
    """The one-file report (every pair on one page), as a stream of strings."""
    env = _environment()
    return env.get_template("report.html.j2").generate(data=data, single=True, **_assets(env))


def render_pages(data: ReportData) -> Iterator[tuple[str, Iterator[str]]]:
    """(file name, stream of strings) for ``index.html`` and each pair's page."""
    env = _environment()
    assets = _assets(env)
    yield "index.html", env.get_template("index.html.j2").generate(data=data, single=False, **assets)
    page = env.get_template("pair.html.j2")
    n = len(data.pairs)
    for i, pv in enumerate(data.pairs):
        prev = data.pairs[i - 1] if i > 0 else None
        nxt = data.pairs[i + 1] if i + 1 < n else None
        yield pv.page, page.generate(data=data, single=False, pair=pv, prev=prev, next=nxt, **assets)


def _write(path: Path, chunks: Iterator[str]) -> None:
    """Write a page through a temporary file, so a failed run leaves no half-written page."""
    tmp = path.with_name(path.name + ".part")
    try:
        with open(tmp, "w", encoding="utf-8", errors="replace", newline="\n") as fh:
            for chunk in chunks:
                fh.write(chunk)
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise WinnowError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


def check_target(out: str | os.PathLike) -> None:
    """A one-line ``WinnowError`` for a report destination that cannot work, raised before any
    work is done: standard output, a file where a folder is asked for, a missing folder."""
    s = os.fspath(out)
    if s == "-":
        raise WinnowError("the HTML report is written to a file or a folder, not to standard output: "
                          "give --html report.html or --html report/")
    path = Path(s)
    if is_directory_target(out):
        if path.exists() and not path.is_dir():
            raise WinnowError(f"{s} is a file, not a folder (without the trailing {os.sep} it is written "
                              f"as one self-contained file)")
        return
    parent = path.parent
    if not parent.is_dir():
        raise WinnowError(f"{parent}: no such folder to write {path.name} in")


def is_directory_target(out: str | os.PathLike) -> bool:
    """Whether ``out`` names a directory report: it ends with a separator or is a directory."""
    s = os.fspath(out)
    return s.endswith(("/", os.sep)) or Path(s).is_dir()


def write_report(idx, out: str | os.PathLike, *, top: int = 50, min_shared: int = 1,
                 new_label: str | None = None, max_df: int | None = None) -> tuple[list[Path], ReportData]:
    """Write the report of ``idx`` to ``out``; returns (files written, the data shown).

    ``out`` ending with a path separator, or an existing directory, gets ``index.html`` and one
    ``pair-NNN.html`` per pair (stale pair pages of an earlier, longer report are removed);
    anything else is one self-contained HTML file.
    """
    check_target(out)
    data = collect(idx, top=top, min_shared=min_shared, new_label=new_label, max_df=max_df)
    target = Path(out)
    written = []
    if is_directory_target(out):
        target.mkdir(parents=True, exist_ok=True)
        for name, chunks in render_pages(data):
            _write(target / name, chunks)
            written.append(target / name)
        keep = {p.name for p in written}
        for old in target.iterdir():
            if _PAGE.fullmatch(old.name) and old.name not in keep and old.is_file():
                old.unlink()
    else:
        _write(target, render_single(data))
        written.append(target)
    return written, data
