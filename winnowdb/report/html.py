"""The HTML report: ranked pairs, and per pair both files side by side with every shared passage.

``write_report(reader, out)`` writes either one self-contained file (``out.html``: every pair on
one page) or a directory (``out/``: ``index.html`` plus one page per pair). Pages carry their CSS
and JavaScript inline and load nothing, so a report can be mailed as one attachment. Each passage
has its own colour on both sides; clicking it on one side brings its partner into view on the
other. Regions whose fingerprints are boilerplate (``sql/boilerplate_spans.sql``) are greyed.

Safety: pages are rendered by Jinja2 with autoescaping on, and document text additionally has
control and bidirectional-override characters made visible (``escape.visible``), so hostile file
contents render as inert text. A Content-Security-Policy allows only the report's own inline
script and style (by hash), as a second line of defence.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
from pathlib import Path
from typing import Iterator

from ..errors import WinnowError
from .html_data import COLOURS, ReportData, collect

__all__ = ["write_report", "render_single", "render_pages", "check_target", "is_directory_target"]

_PAGE = re.compile(r"pair-\d+\.html")


def _environment():
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(loader=PackageLoader("winnowdb", "report/templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals["colours"] = COLOURS
    env.filters["pct"] = lambda v: "?" if v is None else f"{100 * float(v):.1f}%"
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


def write_report(reader, out: str | os.PathLike, *, top: int = 50, min_shared: int = 1,
                 new_label: str | None = None, max_df: int | None = None,
                 min_score: float | None = None) -> tuple[list[Path], ReportData]:
    """Write the report of an open index (its ``analysis.sides.Reader``) to ``out``; returns
    (files written, the data shown).

    ``out`` ending with a path separator, or an existing directory, gets ``index.html`` and one
    ``pair-NNN.html`` per pair (stale pair pages of an earlier, longer report are removed);
    anything else is one self-contained HTML file.
    """
    check_target(out)
    data = collect(reader, top=top, min_shared=min_shared, new_label=new_label, max_df=max_df, min_score=min_score)
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
