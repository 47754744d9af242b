"""``compare`` for people and programs: the passages two documents share, side by side in the
terminal with the matched text highlighted, or as records with their line numbers."""
from __future__ import annotations

from .escape import terminal_line
from .lines import LineIndex
from .paths import display_path

__all__ = ["passage_records", "compare_to_dict", "evidence_line", "render_compare", "text_not_stored", "unstored_note",
           "CLIP_WIDTH", "CLIP_CONTEXT", "KINDS"]


def passage_records(cmp) -> list[dict]:
    """Passages of a ``Comparison`` as plain dicts (stable JSON field names)."""
    out = []
    index: dict[tuple[str, int], LineIndex] = {}

    def lines_of(side: str, doc: int, text: str) -> LineIndex:
        if (side, doc) not in index:
            index[side, doc] = LineIndex(text)
        return index[side, doc]

    def place(side: str, doc: int, text: str, start: int, end: int, hidden: frozenset) -> dict:
        """A passage's place in one document: None where it cannot be shown (``Side.hidden``)."""
        if doc in hidden:
            return {"lines": None, "start": None, "end": None, "text": None}
        lines = lines_of(side, doc, text).span(start, end)
        return {"lines": [lines[0], lines[1]], "start": start, "end": end, "text": text[start:end]}

    for i, p in enumerate(cmp.passages, 1):
        a = place("a", p.doc_a, cmp.a.texts[p.doc_a], p.start_a, p.end_a, cmp.a.hidden)
        b = place("b", p.doc_b, cmp.b.texts[p.doc_b], p.start_b, p.end_b, cmp.b.hidden)
        out.append({
            "passage": i,
            "path_a": cmp.a.paths[p.doc_a], "lines_a": a["lines"], "start_a": a["start"], "end_a": a["end"],
            "path_b": cmp.b.paths[p.doc_b], "lines_b": b["lines"], "start_b": b["start"], "end_b": b["end"],
            "matches": p.matches,
            "text_a": a["text"], "text_b": b["text"],
        })
    return out


def evidence_line(score: dict) -> str:
    """One line: the pair score and the evidence behind it (docs/score.md)."""
    parts = [f"score {100 * score['score']:.1f}%"]
    if score.get("text_containment") is not None:
        parts.append(f"structure (code tokens) {100 * max(score['containment_a'], score['containment_b']):.1f}%, "
                     f"verbatim text {100 * score['text_containment']:.1f}%")
    kinds = [f"{label} {_pct(score.get(key))}" for key, label in KINDS if key in score]
    if any(score.get(key) is not None for key, _ in KINDS):
        parts.append(", ".join(kinds))
    share = {key: "an unknown share" if score[key] is None else _pct(score[key])
             for key in ("coverage_a", "coverage_b")}
    parts.append(f"passages cover {share['coverage_a']} of A, {share['coverage_b']} of B")
    return " · ".join(parts)


#: the evidence of a code pair by kind (``analysis.compare``), and how it is labelled
KINDS = (("identifiers_literals", "identifiers and literals"), ("comments_docstrings", "comments and docstrings"))


def _pct(value) -> str:
    return "none" if value is None else f"{100 * value:.1f}%"


def compare_to_dict(cmp) -> dict:
    return {"a": cmp.a.name, "b": cmp.b.name, **cmp.score, "passages": passage_records(cmp)}


#: longest line shown whole by ``compare`` in the terminal (a long paragraph); longer ones (minified code, a text
#: without line breaks) are cut to the matched part and ``CLIP_CONTEXT`` characters either side
CLIP_WIDTH = 2000
CLIP_CONTEXT = 300


def _clipped(line: str, a: int, b: int) -> tuple[str, int, int]:
    """``line`` cut to at most about ``CLIP_WIDTH`` characters around its matched part
    ``line[a:b]`` (cuts marked with an ellipsis), and the matched part's new bounds."""
    if len(line) <= CLIP_WIDTH:
        return line, a, b
    if a >= b:  # no match on this line: its start
        return line[:CLIP_WIDTH - 1] + "…", 0, 0
    left, right = max(0, a - CLIP_CONTEXT), min(len(line), b + CLIP_CONTEXT)
    matched = line[a:b]
    keep = CLIP_WIDTH - 2 * CLIP_CONTEXT
    if len(matched) > keep:
        matched = matched[:keep // 2] + "…" + matched[-(keep // 2):]
    head = ("…" if left > 0 else "") + line[left:a]
    tail = line[b:right] + ("…" if right < len(line) else "")
    return head + matched + tail, len(head), len(head) + len(matched)


def _excerpt(text: str, start: int, end: int, max_lines: int):
    """The lines around text[start:end] with the matched part highlighted, as rich Text."""
    from rich.text import Text

    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    out = Text()
    lines = text[line_start:line_end].split("\n")
    first = text.count("\n", 0, line_start) + 1
    offset = line_start
    shown = 0
    for n, line in enumerate(lines):
        if shown == max_lines:
            out.append(f"      … {len(lines) - shown} more lines\n", style="dim")
            break
        out.append(f"{first + n:5d} ", style="dim")
        a, b = max(start - offset, 0), min(end - offset, len(line))
        clean, a, b = _clipped(terminal_line(line), a, b)
        if a < b:
            out.append(clean[:a])
            out.append(clean[a:b], style="bold black on yellow")
            out.append(clean[b:])
        else:
            out.append(clean)
        out.append("\n")
        offset += len(line) + 1
        shown += 1
    return out


def text_not_stored(cmp, p) -> bool:
    """Whether passage ``p`` of ``cmp`` lies in a document whose passages cannot be shown
    (``Side.hidden``: the index holds no text of it, or its rows were read without their spans)."""
    return p.doc_a in cmp.a.hidden or p.doc_b in cmp.b.hidden


def unstored_note(cmps) -> str | None:
    """One line saying how many passages of the comparisons ``cmps`` cannot be shown, and why
    (``text_not_stored``), or None when all can be."""
    paths: dict[str, set[str]] = {"unstored": set(), "unplaced": set()}
    hidden = total = 0
    for cmp in cmps:
        total += len(cmp.passages)
        for p in cmp.passages:
            if text_not_stored(cmp, p):
                hidden += 1
                for side, doc in ((cmp.a, p.doc_a), (cmp.b, p.doc_b)):
                    for why in paths:
                        if doc in getattr(side, why):
                            paths[why].add(side.paths[doc])
    if not hidden:
        return None

    def who(found: set[str]) -> str:
        shown = sorted(found)
        return (" and ".join(display_path(x) for x in shown) if len(shown) <= 2 else
                f"{display_path(shown[0])} and {len(shown) - 1} more documents")

    reasons = []
    if paths["unstored"]:
        reasons.append(f"the text of {who(paths['unstored'])} is not stored in this index (imported without texts)")
    if paths["unplaced"]:  # code of an older tokenizer, or (damage) a stored text not the one indexed
        reasons.append(f"the fingerprints of {who(paths['unplaced'])} are not those of its stored text (code "
                       f"tokenized by an older winnowdb: `winnowdb upgrade` tokenizes it again; else `winnowdb check`)")
    return (f"note: {'; '.join(reasons)}: {hidden} of {total} passage{'' if total == 1 else 's'} "
            f"cannot be shown; the scores are complete")


def render_compare(console, cmp, *, max_lines: int = 12) -> None:
    """Side-by-side view of every passage two documents share, matched text highlighted.
    Passages in a text the index does not hold are left out (``unstored_note`` says so)."""
    from rich.table import Table
    from rich.text import Text

    s = cmp.score
    console.print(Text.assemble(
        ("A ", "bold"), display_path(cmp.a.name), ("  B ", "bold"), display_path(cmp.b.name)))
    console.print(Text(
        f"{s['shared']} shared fingerprints · {100 * s['containment_a']:.1f}% of A found in B · "
        f"{100 * s['containment_b']:.1f}% of B found in A · resemblance {100 * s['resemblance']:.1f}% · "
        f"{len(cmp.passages)} passage{'' if len(cmp.passages) == 1 else 's'}"))
    console.print(Text(evidence_line(s), style="bold"))
    for rec, p in zip(passage_records(cmp), cmp.passages):
        if text_not_stored(cmp, p):
            continue
        t = Table(show_header=True, header_style="bold", expand=True)
        t.add_column(Text(f"#{rec['passage']}  A {display_path(rec['path_a'])} "
                          f"lines {rec['lines_a'][0]}-{rec['lines_a'][1]}"), ratio=1, overflow="fold")
        t.add_column(Text(f"B {display_path(rec['path_b'])} lines {rec['lines_b'][0]}-{rec['lines_b'][1]}"),
                     ratio=1, overflow="fold")
        t.add_row(_excerpt(cmp.a.texts[p.doc_a], p.start_a, p.end_a, max_lines),
                  _excerpt(cmp.b.texts[p.doc_b], p.start_b, p.end_b, max_lines))
        console.print(t)
