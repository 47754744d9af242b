"""Render results for people and programs: rich tables, JSON and CSV, side-by-side passages.

Document text is always handed to rich as ``Text`` objects (never parsed as markup), so file
contents cannot restyle or garble the terminal output.
"""
from __future__ import annotations

import csv
import io
import json
import os
from typing import Any, Iterable

__all__ = ["emit_rows", "write_file", "display_path", "relative_path", "terminal_safe", "common_folder", "below", "folder_note", "render_compare",
           "text_not_stored", "unstored_note", "compare_to_dict", "passage_records", "render_stats"]

FORMATS = ("table", "json", "csv")


#: invisible characters a terminal shows harmlessly: zero-width (non-)joiners (inside emoji and
#: Indic words) and the soft hyphen; every other control or format character is made visible
_HARMLESS_FORMAT = frozenset("\u200c\u200d\u00ad")


def _shown_char(ch: str) -> bool:
    if ch.isprintable() or ch in _HARMLESS_FORMAT:
        return True
    import unicodedata

    return unicodedata.category(ch) == "Zs"  # no-break and other spaces


def _escape(ch: str) -> str:
    o = ord(ch)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def _looks_escaped(text: str) -> bool:
    """Whether ``text`` holds a backslash that could be read as the start of an escape."""
    return any(f"\\{c}" in text for c in "\\xuU")


def terminal_safe(text: str, *, lines: bool = False) -> str:
    """``text`` (a file name, a label, a message) with every character a terminal would act on or
    that would reorder or hide what is shown (escape sequences, other control characters, bidi
    overrides) written as a visible escape: ``\\x1b``, ``\\u202e``, ``\\U000e0001``.

    Unambiguous: when ``text`` needs an escape, or holds a backslash followed by ``x``, ``u``,
    ``U`` or another backslash (which could be read as one), every backslash in it is doubled, so
    a file literally named ``a\\x1b.txt`` is shown as ``a\\\\x1b.txt`` and one whose name holds an
    ESC as ``a\\x1b.txt``. Anything else -- nearly every path and message, also one with a lone
    backslash such as ``a\\b`` -- is returned unchanged. Apply it once, to the raw text: escaped
    text given again would be escaped again. With ``lines``, line breaks are kept and each line
    is escaped by itself (a table cell listing one path per line)."""
    if text.isprintable() and "\\" not in text:
        return text
    if lines and "\n" in text:
        return "\n".join(terminal_safe(line) for line in text.split("\n"))
    if all(_shown_char(ch) for ch in text) and not _looks_escaped(text):
        return text
    return "".join("\\\\" if ch == "\\" else ch if _shown_char(ch) else _escape(ch) for ch in text)


def relative_path(path: str) -> str:
    """``path`` relative to the current directory when it lies below it, else unchanged; not yet
    made safe for the terminal (``display_path`` is both)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = ".."
    return path if rel.startswith("..") else rel


def display_path(path: str) -> str:
    """A path for a person to read: relative to the current directory when it lies below it, with
    characters a terminal would act on made visible (``terminal_safe``)."""
    return terminal_safe(relative_path(path))


#: columns that hold a document's path (shown relative to the folder all shown paths share)
PATH_COLUMNS = ("a", "b", "path")


def common_folder(paths: Iterable[str]) -> str:
    """The deepest folder that holds every one of ``paths`` (as displayed), or "" when they share
    none worth dropping (no paths, one path, the file system root, or absolute and relative
    paths mixed). Tables show paths below it and name it once, in a caption."""
    distinct = {p for p in paths if p}
    if len(distinct) < 2:
        return ""
    try:
        folder = os.path.commonpath(list(distinct))
    except ValueError:
        return ""
    if folder in distinct:  # one of the paths is itself the common path: a file, not a folder
        folder = os.path.dirname(folder)
    return "" if folder in ("", os.sep, ".") else folder


def below(path: str, folder: str) -> str:
    """``path`` relative to ``folder`` when it lies below it (``common_folder``), else unchanged."""
    if folder and path.startswith(folder + os.sep):
        return path[len(folder) + 1:]
    return path


def folder_note(folder: str) -> str:
    """The caption line naming the folder a table's paths are shown under."""
    return f"paths under {folder}{os.sep}"


def _write(text: str) -> None:
    """Machine-readable output goes straight to stdout: no terminal styling, no wrapping."""
    import sys

    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def write_file(path: str | os.PathLike) -> None:
    """Copy a finished output file (e.g. CSV written by DuckDB) to stdout."""
    import shutil
    import sys

    sys.stdout.flush()
    with open(path, encoding="utf-8", newline="") as fh:
        shutil.copyfileobj(fh, sys.stdout, 1 << 20)
    sys.stdout.flush()


def _csv_text(rows: list[dict], columns: list[str]) -> str:
    """CSV with a header row, fields quoted only where needed (safe for simple consumers)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    w.writerows([["" if r.get(c) is None else r.get(c) for c in columns] for r in rows])
    return buf.getvalue().rstrip("\n")


def _cell(value: Any, column: str) -> str:
    if isinstance(value, float):
        if column in ("containment", "contained", "resemblance", "density", "expected_density") \
                or column.startswith("containment"):
            return f"{100 * value:.1f}%"
        return f"{value:.4g}"
    if value is None:
        return ""
    if column in ("a", "b", "path") and isinstance(value, str):
        return relative_path(value)  # made safe with the rest of the cell (``emit_rows``)
    return str(value)


def emit_rows(console, rows: list[dict], columns: list[str], fmt: str, *, title: str | None = None,
              empty: str = "no results", headers: dict[str, str] | None = None,
              notes: Iterable[str] = (), shorten_paths: bool = True) -> None:
    """Print ``rows`` (dicts) as a table, JSON (a list of objects) or CSV with ``columns``.

    Only the table is for people: there ``headers`` may rename columns, ``notes`` are printed as
    the caption, and paths (``PATH_COLUMNS``) are shown below the folder they all share, named
    in the caption (``shorten_paths=False`` keeps them whole). JSON and CSV are never changed.
    Headers, cells, title and caption are made safe for the terminal here, once (``terminal_safe``,
    never read as markup): give them raw, paths included (``relative_path``, not ``display_path``)."""
    if fmt == "json":
        _write(json.dumps([{c: r.get(c) for c in columns} for r in rows], indent=2, default=str))
        return
    if fmt == "csv":
        _write(_csv_text(rows, columns))
        return
    from rich.table import Table
    from rich.text import Text

    if not rows:
        console.print(Text(empty, style="dim"))
        return
    cells = [[_cell(r.get(c), c) for c in columns] for r in rows]
    path_at = [i for i, c in enumerate(columns) if c in PATH_COLUMNS and isinstance(rows[0].get(c), str)]
    folder = common_folder(row[i] for row in cells for i in path_at) if shorten_paths else ""
    if folder:
        for row in cells:
            for i in path_at:
                row[i] = below(row[i], folder)
    caption = "\n".join(([folder_note(folder)] if folder else []) + list(notes))
    table = Table(title=Text(terminal_safe(title), style="table.title") if title else None,
                  caption=Text(terminal_safe(caption, lines=True), style="dim") if caption else None,
                  show_lines=False,
                  header_style="bold")
    for c in columns:
        numeric = isinstance(rows[0].get(c), (int, float))
        # numbers never wrap (nor do their headers): the text columns take what width is left
        header = Text(terminal_safe((headers or {}).get(c, c)))  # a column name is text, never markup
        table.add_column(header, justify="right" if numeric else "left",
                         overflow="fold", no_wrap=numeric, ratio=None if numeric else 1)
    for row in cells:
        table.add_row(*(Text(terminal_safe(v, lines=True)) for v in row))
    console.print(table)


def _lines(text: str, start: int, end: int) -> tuple[int, int]:
    first = text.count("\n", 0, start) + 1
    last = first + text.count("\n", start, max(start, end - 1))
    return first, last


def passage_records(cmp) -> list[dict]:
    """Passages of a ``Comparison`` as plain dicts (stable JSON field names)."""
    out = []
    for i, p in enumerate(cmp.passages, 1):
        ta, tb = cmp.a.texts[p.doc_a], cmp.b.texts[p.doc_b]
        la, lb = _lines(ta, p.start_a, p.end_a), _lines(tb, p.start_b, p.end_b)
        out.append({
            "passage": i,
            "path_a": cmp.a.paths[p.doc_a], "lines_a": [la[0], la[1]],
            "start_a": p.start_a, "end_a": p.end_a,
            "path_b": cmp.b.paths[p.doc_b], "lines_b": [lb[0], lb[1]],
            "start_b": p.start_b, "end_b": p.end_b,
            "matches": p.matches,
            "text_a": ta[p.start_a:p.end_a], "text_b": tb[p.start_b:p.end_b],
        })
    return out


def compare_to_dict(cmp) -> dict:
    return {"a": cmp.a.name, "b": cmp.b.name, **cmp.score, "passages": passage_records(cmp)}


def _terminal_line(line: str) -> str:
    """One line of document text for the terminal, same length: a carriage return (of a CRLF
    line end) becomes a space, other control and format characters U+FFFD; tabs, spaces of every
    kind and emoji joiners stay."""
    if line.isprintable():
        return line
    return "".join(ch if ch == "\t" or _shown_char(ch) else (" " if ch == "\r" else "\ufffd") for ch in line)


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
        clean, a, b = _clipped(_terminal_line(line), a, b)
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
    """Whether passage ``p`` of ``cmp`` lies in a document whose text the index does not hold
    (``Side.unstored``): its place is known, its text cannot be shown."""
    return p.doc_a in cmp.a.unstored or p.doc_b in cmp.b.unstored


def unstored_note(cmps) -> str | None:
    """One line saying how many passages of the comparisons ``cmps`` cannot be shown because the
    index holds no text of their documents (``text_not_stored``), or None when all can be."""
    paths: set[str] = set()
    hidden = total = 0
    for cmp in cmps:
        total += len(cmp.passages)
        for p in cmp.passages:
            if text_not_stored(cmp, p):
                hidden += 1
                paths.update(side.paths[doc] for side, doc in ((cmp.a, p.doc_a), (cmp.b, p.doc_b))
                             if doc in side.unstored)
    if not hidden:
        return None
    shown = sorted(paths)
    who = (" and ".join(display_path(x) for x in shown) if len(shown) <= 2 else
           f"{display_path(shown[0])} and {len(shown) - 1} more documents")
    return (f"note: the text of {who} is not stored in this index (imported without texts): {hidden} of "
            f"{total} passage{'' if total == 1 else 's'} cannot be shown; the scores are complete")


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


def render_stats(console, st: dict, fmt: str) -> None:
    """The index summary, density check and most common fingerprints."""
    if fmt == "json":
        _write(json.dumps(st, indent=2, default=str))
        return
    if fmt == "csv":
        scalars = [k for k, v in st.items() if not isinstance(v, (dict, list))]  # nested parts: use json
        emit_rows(console, [st], scalars, "csv")
        return
    from rich.table import Table
    from rich.text import Text

    t = Table(title=Text(f"index {display_path(st['index'])}", style="table.title"), show_header=False)
    t.add_column("what", style="bold")
    t.add_column("value")
    from .normalizers import TEXT_NORMALIZERS, TEXT_UNITS

    cfg = st["settings"]
    reads_text = cfg.get("normalizer") if cfg.get("normalizer") in TEXT_NORMALIZERS \
        else cfg.get("text_normalizer", "text")  # shown as it is, known or not
    rows: Iterable[tuple[str, str]] = [
        ("documents", f"{st['documents'] + st['boilerplate']} ({st['documents']} in {st['submissions']} "
                      f"submissions, {st['boilerplate']} boilerplate)"),
        ("fingerprints", f"{st['fingerprints']} ({st['distinct_hashes']} distinct)"),
        ("text", f"{st['chars']} characters, {st['units']} normalized units"),
        ("settings", f"normalizer={cfg.get('normalizer')} selection={cfg.get('selection')}; "
                     f"{reads_text}: k={cfg.get('k')} w={cfg.get('w')} (guarantee t="
                     f"{int(cfg.get('k', 0)) + int(cfg.get('w', 0)) - 1} {TEXT_UNITS.get(reads_text, 'units')}); "
                     f"code: k={cfg.get('code_k')} w={cfg.get('code_w')} (guarantee t="
                     f"{int(cfg.get('code_k', 0)) + int(cfg.get('code_w', 0)) - 1} tokens)"),
        *[(f"density ({d['family']})", f"{d['density']:.4f} measured vs {d['expected']:.4f} expected "
           f"(2/(w+1)) over {d['documents']} documents") for d in st["density"]],
        ("default --max-df", str(st["default_max_df"])),
        ("schema", f"version {cfg.get('schema_version')}, hash {cfg.get('hash_version')}"),
    ]
    for a, b in rows:
        t.add_row(a, Text(b))
    console.print(t)
    if st["common"]:
        emit_rows(console, [{"hash": c["hash"], "df": c["df"], "occurrences": c["occurrences"],
                             "example": c["example_text"].replace("\n", " ")[:60],
                             "path": c["example_path"]} for c in st["common"]],
                  ["hash", "df", "occurrences", "example", "path"], "table", title="most common fingerprints",
                  headers={"path": "in"})
