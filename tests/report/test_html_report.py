"""The HTML report (``winnowdb report --html``): structure, escaping, and a real browser.

An index is built from files that include hostile content (a script that would mark the page if
it ran, ``</textarea>``, quotes, control and bidi characters) and a file named with spaces, quotes
and ``<b>``. The report is generated with the real CLI and loaded in headless Chromium: the test
checks the page's structure in the DOM Chromium dumps (after the report's own script has run),
that the hostile script did not run, and that its text is shown literally. A screenshot goes to
tests/artifacts/report.png (or $WINNOWDB_ARTIFACTS) for people to look at; its pixels (read by
``pixels.py``) show the page's regions in their colours.

Without Chromium the browser tests are skipped, unless $WINNOWDB_REQUIRE_BROWSER is set (as CI
does), when they fail.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from winnowdb.report.escape import visible
from winnowdb.report.html_data import doc_lines
from winnowdb.store import sqlfiles

from .pixels import count_color, read_png

HERE = Path(__file__).resolve().parent

HEADER = ("COURSE 101 HONOUR CODE: I declare that this submission is entirely my own work and that "
          "I have acknowledged every source I used in preparing it.\n\n")
TERNS = ("The quick migration of arctic terns spans both poles every single year, and they see more "
         "daylight than any other creature on the planet because they chase the summer around the globe.\n")
TALLY = ("def tally(items):\n    total = 0\n    for item in items:\n"
         "        total += item.weight * item.count\n    return total\n")
# If any of this ran, the page would carry a `pwned` attribute or element. The marker is built by
# concatenation so that the hostile *text*, shown on the page, never contains it.
HOSTILE = ('<script>document.documentElement.setAttribute("data-pw"+"ned","1");'
           'var d=document.createElement("div");d.id="pw"+"ned";document.body.appendChild(d);'
           'window.PWNED=1</script>\n'
           '</textarea></pre><img src=x onerror="document.body.setAttribute(\'data-pw\'+\'ned\',\'img\')"> '
           '"double" \'single\' &amp; \x01\x07\x1b[31m \x7f\x85 \u202eevil\u202c end\r\n'
           '"><script>window.PWNED=3</script><svg onload="window.PWNED=4">\n')
ODD_NAME = "it's a \"quoted\" <b>name.txt"


def _corpus(root: Path) -> Path:
    sub = root / "sub"
    sub.mkdir(parents=True)
    (root / "header.txt").write_text(HEADER, encoding="utf-8")
    (sub / "alpha.txt").write_text(
        HEADER + "Essay one about birds.\n\n" + TERNS + "\nSome original thoughts about penguins in the "
        "far south.\n" + HOSTILE + TALLY, encoding="utf-8", newline="")
    (sub / ODD_NAME).write_text(
        HEADER + "Different opening words about seabirds entirely.\n" + HOSTILE + "\n" + TALLY
        + "\nfiller text that is unique to this file only\n" + TERNS, encoding="utf-8", newline="")
    (sub / "gamma.txt").write_text(
        "A note on weights and counts, written for a different course.\n\n" + TALLY
        + "\nNothing else here resembles the other files at all.\n", encoding="utf-8")
    (sub / "other.txt").write_text(
        HEADER + "Completely unrelated content about volcanic rock formations and basalt columns.\n",
        encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory) -> tuple[Path, Path]:
    """(corpus root, index): the hostile corpus, its header added as boilerplate."""
    import winnowdb

    root = _corpus(tmp_path_factory.mktemp("hostile"))
    db = root / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([root / "header.txt"], boilerplate=True)
        s = idx.add([root / "sub"], label="2025")
        assert s.added == 4 and not s.skipped
    return root, db


@pytest.fixture(scope="module")
def single_report(hostile_db) -> Path:
    """The one-file report, written by the real ``winnowdb`` process."""
    root, db = hostile_db
    out = root / "report.html"
    r = subprocess.run([sys.executable, "-m", "winnowdb", "report", "--db", str(db), "--html", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("wrote ") and "3 pairs" in r.stdout, r.stdout
    return out


# ------------------------------------------------------------------- parsing pages
class Page(HTMLParser):
    """Elements (tag, attrs) of an HTML page, and its text outside <script> and <style>."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: (v or "") for k, v in attrs}))
        if tag in ("script", "style"):
            self._in.append(tag)

    def handle_endtag(self, tag):
        if self._in and self._in[-1] == tag:
            self._in.pop()

    def handle_data(self, data):
        (self.scripts if self._in == ["script"] else self.text if not self._in else []).append(data)

    def all(self, tag=None, cls=None, **attrs) -> list[dict]:
        out = []
        for t, a in self.elements:
            if tag and t != tag:
                continue
            if cls and cls not in a.get("class", "").split():
                continue
            if all(a.get(k.replace("_", "-")) == v for k, v in attrs.items()):
                out.append(a)
        return out

    def by_id(self) -> dict[str, dict]:
        return {a["id"]: a for _, a in self.elements if "id" in a}


def check_structure(page: Page, pairs: int, *, single: bool) -> None:
    """Pairs table, pair sections with two panes, passages anchored and linked both ways."""
    rows = page.all("tr", cls="pair-row")
    assert len(rows) == pairs
    sections = page.all("section", cls="pair")
    assert len(sections) == (pairs if single else 1)
    assert len(page.all("div", cls="pane")) == 2 * len(sections)
    assert {a["data-side"] for a in page.all("div", cls="pane")} == {"a", "b"}
    ids = page.by_id()
    anchors = [a for a in page.all("a") if re.fullmatch(r"pair-\d+-p\d+-[ab]", a.get("id", ""))]
    assert anchors, "no passage anchors"
    for a in anchors:
        base, side = a["id"][:-1], a["id"][-1]
        partner = base + ("b" if side == "a" else "a")
        assert a["href"] == "#" + partner, a
        assert ids[partner]["href"] == "#" + a["id"], "partner does not link back"
        assert "m" in a["class"].split() and re.search(r"\bc\d+\b", a["class"])
    chips = page.all("a", cls="chip")  # the passage lists: every passage has both anchors
    assert chips
    for chip in chips:
        base = chip["href"][1:-1]
        assert base + "a" in ids and base + "b" in ids, chip
    assert {c["href"].split("-p")[0] for c in chips} == {"#" + s["id"] for s in sections}
    line_numbers = [a["data-n"] for a in page.all("div", cls="l")]
    assert line_numbers[:3] == ["1", "2", "3"]


def check_safe(page: Page) -> None:
    """No sign of the hostile content running; its text is on the page literally."""
    for tag, attrs in page.elements:
        for k, v in attrs.items():
            assert "pwned" not in k.lower() and "pwned" not in v.lower(), (tag, attrs)
    assert not [a for a in page.all("img")] and not [a for a in page.all("svg")]
    assert all(not a.get("onerror") and not a.get("onload") for _, a in page.elements)
    text = "".join(page.text)
    assert '<script>document.documentElement.setAttribute("data-pw"+"ned","1");' in text
    assert "</textarea></pre><img src=x onerror=" in text
    assert '"double" \'single\' &amp;' in text
    assert "\\x01\\x07\\x1b[31m" in text and "U+202E" in text
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", text), "raw control characters"
    assert ODD_NAME in text
    assert len(page.scripts) == 1, "only the report's own script may be a <script> element"


# ------------------------------------------------------------------- static checks
def test_single_file_is_self_contained_and_escaped(single_report):
    html = single_report.read_text(encoding="utf-8")
    page = Page(html)
    check_structure(page, 3, single=True)
    check_safe(page)
    assert html.count("<script") == 1 and "&lt;script&gt;document.documentElement" in html
    # nothing is loaded from anywhere: no external scripts, styles, images, fonts or frames
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:|//|file:)""", html, re.I)
    assert not re.search(r"<(?:link|iframe|object|embed|base)\b", html, re.I)
    assert "@import" not in html and "url(" not in html
    csp = page.all("meta", http_equiv="Content-Security-Policy")[0]["content"]
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp and "unsafe-inline" not in csp
    # boilerplate greyed, and the pairs table links to the sections
    assert page.all("span", cls="bp")
    assert [a["href"] for a in page.all("a") if a.get("href", "").startswith("#pair-")
            and "-p" not in a["href"]][:1] == ["#pair-1"]


def test_directory_report(hostile_db, cli, tmp_path):
    _, db = hostile_db
    out = tmp_path / "site"
    out.mkdir()
    (out / "pair-009.html").write_text("stale")
    (out / "notes.txt").write_text("mine")
    r = cli("report", "--db", db, "--html", f"{out}{os.sep}", "--top", "2")
    assert r.exit_code == 0, r.output
    assert "(3 pages): 2 pairs" in r.stdout
    names = sorted(p.name for p in out.iterdir())
    assert names == ["index.html", "notes.txt", "pair-001.html", "pair-002.html"]
    index = Page((out / "index.html").read_text(encoding="utf-8"))
    assert len(index.all("tr", cls="pair-row")) == 2 and not index.all("section", cls="pair")
    assert {a["href"] for a in index.all("a")} >= {"pair-001.html", "pair-002.html"}
    for name in ("pair-001.html", "pair-002.html"):
        page = Page((out / name).read_text(encoding="utf-8"))
        assert len(page.all("section", cls="pair")) == 1 and len(page.all("div", cls="pane")) == 2
        assert page.all("a", href="index.html")
    first = Page((out / "pair-001.html").read_text(encoding="utf-8"))
    assert first.all("a", rel="next", href="pair-002.html")
    check_safe(first)


def test_options_reach_pairs(hostile_db, cli, tmp_path):
    _, db = hostile_db
    out = tmp_path / "r.html"
    r = cli("report", "--db", db, "--html", out, "--top", "1", "--max-df", "50", "--min-shared", "1")
    assert r.exit_code == 0 and "1 pair" in r.stdout
    assert len(Page(out.read_text(encoding="utf-8")).all("tr", cls="pair-row")) == 1
    r = cli("report", "--db", db, "--html", out, "--new", "1999")  # archive mode: nothing labelled 1999
    assert r.exit_code == 0 and "0 pairs" in r.stdout
    assert "No pairs share a passage" in "".join(Page(out.read_text(encoding="utf-8")).text)
    r = cli("report", "--db", db, "--html", out, "--new", "2025")
    assert r.exit_code == 0 and "3 pairs" in r.stdout
    r = cli("report", "--db", db, "--html", out, "--min-shared", "100000")
    assert r.exit_code == 0 and "0 pairs" in r.stdout
    # the header names the settings the index was made with, code settings included
    header = " ".join(" ".join(Page(out.read_text(encoding="utf-8")).text).split())
    assert "normalizer auto: prose k=22 w=12, code k=12 w=8" in header, header


@pytest.mark.parametrize("args,says", [
    (["report"], "say where to write"),                                       # no --html
    (["report", "--html", "{tmp}/no/such/dir/r.html"], "no such folder"),     # parent missing
    (["report", "--html", "{tmp}/file.txt/"], "is a file, not a folder"),     # a file where a directory is wanted
    (["report", "--html", "-"], "not to standard output"),                   # no report on stdout
])
def test_errors_are_one_line(hostile_db, cli, tmp_path, args, says, monkeypatch):
    _, db = hostile_db
    (tmp_path / "file.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    r = cli(*[a.replace("{tmp}", str(tmp_path)) for a in args], "--db", db)
    assert r.exit_code != 0 and "Traceback" not in r.output
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error: "), r.stderr
    assert says in r.stderr and ".part" not in r.stderr
    assert not list(tmp_path.rglob("*.part")) and not (tmp_path / "-").exists()


def test_missing_index_is_one_line(cli, tmp_path):
    r = cli("report", "--db", tmp_path / "none.duckdb", "--html", tmp_path / "r.html")
    assert r.exit_code != 0 and r.stderr.startswith("error: no index") and len(r.stderr.splitlines()) == 1


def test_submissions_and_line_ranges(tmp_path):
    # submission mode: a side is several files; files sharing nothing are listed but not shown,
    # and the passage list's line ranges are those of `compare` (report.passage_records)
    import winnowdb
    from winnowdb.report.compare_view import passage_records
    from winnowdb.report.html import write_report
    from winnowdb.report.html_data import collect

    for sub, files in (("s1", {"a.txt": TERNS, "code.py": TALLY}),
                       ("s2", {"b.txt": "Intro line.\n" + TERNS, "c.py": "# x\n" + TALLY,
                               "unrelated.txt": "Nothing in common with anything else here.\n"})):
        (tmp_path / "subs" / sub).mkdir(parents=True)
        for name, text in files.items():
            (tmp_path / "subs" / sub / name).write_text(text, encoding="utf-8")
    with winnowdb.open(tmp_path / "i.duckdb") as idx:
        idx.add([tmp_path / "subs"], submission_depth=1)
        data = collect(idx.reader)
        assert len(data.pairs) == 1
        pv = data.pairs[0]
        assert [r["lines_a"] for r in passage_records(pv.comparison)] == [list(r.lines_a) for r in pv.passages]
        assert [r["lines_b"] for r in passage_records(pv.comparison)] == [list(r.lines_b) for r in pv.passages]
        side_b = {d.name: d for d in pv.side("b")}
        assert set(side_b) == {"s2/b.txt", "s2/c.py", "s2/unrelated.txt"}
        assert side_b["s2/unrelated.txt"].hidden == 1 and not side_b["s2/unrelated.txt"].lines
        assert side_b["s2/b.txt"].lines and not side_b["s2/b.txt"].hidden
        written, _ = write_report(idx.reader, tmp_path / "r.html")
    page = Page(written[0].read_text(encoding="utf-8"))
    assert [a["href"] for a in page.all("a", cls="chip")] and len(page.all("div", cls="doc")) == 5
    assert "1 line, no passage shared with the other side (not shown)" in "".join(page.text)


# ------------------------------------------------------------------- units
def test_doc_lines_marks_passages_boilerplate_and_line_ends():
    text = "head\r\nab cd\nef\n"
    lines = doc_lines(text, [(1, 6, 11), (2, 9, 14)], [(0, 4)])
    assert len(lines) == 3  # the final newline ends line 3; CR of CRLF dropped
    assert [(p.text, p.boilerplate) for p in lines[0]] == [("head", True)]
    l2 = lines[1]
    assert [p.text for p in l2] == ["ab ", "cd"]
    assert l2[0].passages == (1,) and l2[0].anchor == (1,)
    assert l2[1].passages == (2, 1) and l2[1].anchor == (2,)  # innermost passage colours it
    assert [(p.text, p.passages) for p in lines[2]] == [("ef", (2,))]
    assert l2[1].classes == "m c1 ps" and l2[1].data_p == "2 1"


def test_visible_tags_controls_and_bidi():
    assert visible("a\x00b\x1b\x7f\x85\u202ec\td") == "a\\x00b\\x1b\\x7f\\x85U+202Ec\td"


def test_boilerplate_spans_sql(hostile_db):
    import winnowdb

    sql = sqlfiles.load("boilerplate_spans")
    assert sql.startswith("-- boilerplate_spans.sql:") and "::" not in sql
    assert sqlfiles.parameters(sql) == {"k", "code_k"}
    root, db = hostile_db
    with winnowdb.open(db, read_only=True, create=False) as idx:

        def spans(name: str) -> list:  # the side's rows, with the spans fingerprinting its text gives
            side = idx.reader.side(root / "sub" / name)
            with idx.store.relations(side_rows=side.fingerprints):
                return idx.store.run("boilerplate_spans", k=idx.k,
                                     code_k=int(idx.settings.get("code_k", idx.k))).fetchall()

        rows, none = spans("alpha.txt"), spans("gamma.txt")
    assert len(rows) == 1 and none == []  # the header is one span, not one per fingerprint
    _, start, end, n = rows[0]
    assert start < 20 and len(HEADER) - 20 < end <= len(HEADER) and n > 1


# ------------------------------------------------------------------- in the browser
def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("WINNOWDB_REQUIRE_BROWSER"):
        pytest.fail("headless Chromium is required ($WINNOWDB_REQUIRE_BROWSER) but not installed")
    pytest.skip("Chromium is not installed (apt-get install chromium)")


def _browse(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--mute-audio",
           f"--user-data-dir={tmp_path / 'chromium-profile'}", *extra, url]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    return r


def test_report_in_chromium(single_report, tmp_path):
    # Open the page at passage 1 of pair 1's A side: the report's script outlines the passage on
    # both sides (and scrolls B to it) -- the same code a click runs.
    url = single_report.as_uri() + "#pair-1-p1-a"
    dom = _browse(tmp_path, url, "--dump-dom").stdout
    page = Page(dom)
    html_attrs = page.all("html")[0]
    assert html_attrs.get("data-winnow") == "ready", "the report's own script did not run"
    assert html_attrs.get("data-active") == "pair-1-p1"
    check_structure(page, 3, single=True)
    check_safe(page)
    assert page.all("span", cls="bp"), "boilerplate is not greyed"
    lit = [a for a in page.all(cls="hl")]
    assert {a.get("id") for a in lit} >= {"pair-1-p1-a", "pair-1-p1-b"}
    assert all("1" in a["data-p"].split() for a in lit)
    assert not page.all("div", id="pwned") and "PWNED" not in "".join(page.scripts)


def test_report_screenshot(single_report, tmp_path):
    artifacts = Path(os.environ.get("WINNOWDB_ARTIFACTS") or HERE / "artifacts")
    artifacts.mkdir(parents=True, exist_ok=True)
    ignore = artifacts / ".gitignore"
    if artifacts == HERE / "artifacts" and not ignore.exists():
        ignore.write_text("*\n")  # screenshots are for looking at, never for committing
    png = artifacts / "report.png"
    png.unlink(missing_ok=True)
    _browse(tmp_path, single_report.as_uri(), f"--screenshot={png}", "--window-size=1400,1000",
            "--hide-scrollbars")
    # What the page looks like, from its pixels (colours from report.css): not blank, the header
    # band across the top, and below it pair 1's files side by side, each half showing both
    # passages in their colours, the greyed boilerplate and a file-name bar.
    pixels = read_png(png)
    height, width, _ = pixels.shape
    assert (height, width) == (1000, 1400)
    assert count_color(pixels, "#ffffff") < 0.9 * height * width, "the page is (almost) blank"
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 200, "too few colours for text on a page"
    band = pixels[:60]  # the header: its panel colour, with the title's dark text on it
    assert count_color(band, "#f7f8fa") > 0.8 * band.shape[0] * width
    assert count_color(band, "#1d2330") > 200
    assert count_color(pixels[120:], "#f7f8fa") < 0.01 * height * width  # and it ends
    for half in (pixels[height // 2:, :width // 2], pixels[height // 2:, width // 2:]):
        for css in ("#ffe08a", "#a8e6cf"):  # passages 1 and 2
            assert count_color(half, css) > 5_000, css
        assert count_color(half, "#f1f2f4") > 2_000  # boilerplate
        assert count_color(half, "#1d2330") > 500  # text
    for half in (pixels[:, :width // 2], pixels[:, width // 2:]):
        assert count_color(half, "#eef1f5") > 5_000  # a file-name bar
