"""The ``winnowdb`` command line end to end: the real typer app in-process (CliRunner) and the
installed console script in a subprocess, on real files and real DuckDB indexes."""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BOILERPLATE_ESSAYS, PLANTED, ok, one_line_error, pair_key
from typer.testing import CliRunner

from winnowdb.cli import app

QUERY_FIELDS = ["path", "score", "shared", "containment", "contained", "resemblance"]
PAIR_FIELDS = ["a", "b", "score", "shared", "containment_a", "containment_b", "resemblance"]


def summary(result) -> str:
    """The add summary with the white space collapsed."""
    return " ".join(result.stdout.split())


def as_json(result):
    return json.loads(ok(result).stdout)


@pytest.fixture(scope="session")
def cli_db(corpus, tmp_path_factory):
    """An index of the corpus built with the CLI (boilerplate first, with --boilerplate)."""
    db = tmp_path_factory.mktemp("cli") / "cli.duckdb"
    runner = CliRunner(env={"COLUMNS": "80", "WINNOWDB_DB": None})
    r = ok(runner.invoke(app, ["add", str(corpus / "boilerplate"), "--boilerplate", "--db", str(db)]))
    assert summary(r).startswith("1 added, 0 updated, 0 unchanged, 0 skipped")
    r = ok(runner.invoke(app, ["add", str(corpus / "essays"), str(corpus / "code"), "--db", str(db)]))
    assert summary(r).startswith("21 added, 0 updated, 0 unchanged, 0 skipped")
    return db


def _pair_set(rows, root):
    return {pair_key(r["a"], r["b"], root) for r in rows}


# ------------------------------------------------------------------ pairs
def test_pairs_json_finds_the_planted_copies(cli, cli_db, corpus):
    rows = as_json(cli("pairs", "--db", cli_db, "--format", "json"))
    assert rows and all(list(r) == PAIR_FIELDS for r in rows)  # stable field names, in order
    found = _pair_set(rows, corpus)
    for a, b in PLANTED:
        assert frozenset((a, b)) in found
    for i, a in enumerate(BOILERPLATE_ESSAYS):
        for b in BOILERPLATE_ESSAYS[i + 1:]:
            assert frozenset((a, b)) not in found, (a, b)


def test_pairs_top(cli, cli_db):
    everything = as_json(cli("pairs", "--db", cli_db, "-f", "json", "--top", "0"))
    assert len(everything) >= 4
    assert as_json(cli("pairs", "--db", cli_db, "-f", "json", "--top", "1")) == everything[:1]
    assert as_json(cli("pairs", "--db", cli_db, "-f", "json", "-n", "3")) == everything[:3]
    # --top 0 is every pair there is
    n = as_json(cli("sql", "SELECT COUNT(*) AS n FROM pairs", "--db", cli_db, "-f", "json"))[0]["n"]
    assert len(everything) == n


def test_pairs_csv_parses(cli, cli_db, corpus):
    r = ok(cli("pairs", "--db", cli_db, "--format", "csv", "--top", "0"))
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert rows
    assert list(rows[0]) == PAIR_FIELDS
    as_json_rows = as_json(cli("pairs", "--db", cli_db, "-f", "json", "--top", "0"))
    assert len(rows) == len(as_json_rows)
    for c, j in zip(rows, as_json_rows):
        assert (c["a"], c["b"], int(c["shared"])) == (j["a"], j["b"], j["shared"])
        for f in ("containment_a", "containment_b", "resemblance"):
            assert float(c[f]) == pytest.approx(j[f])


def test_pairs_table(cli, cli_db):
    r = ok(cli("pairs", "--db", cli_db))
    assert "comets" in r.stdout and "score" in r.stdout


def test_tables_show_paths_below_their_common_folder(cli, cli_db, corpus, tmp_path, monkeypatch):
    # run from elsewhere, so paths are absolute: the table names the corpus folder once, in its
    # caption, and shows the paths below it, so they fit unfolded in 120 columns
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "120")
    r = ok(cli("pairs", "--db", cli_db, "--top", "3"))
    flat = " ".join(r.stdout.split())
    assert "paths under " in flat and "essays/comets.txt" in r.stdout
    assert str(corpus) + os.sep + "essays" not in r.stdout  # no row repeats the folder
    caption = next(line for line in r.stdout.splitlines() if "paths under" in line).strip()
    assert caption == f"paths under {corpus}{os.sep}"
    # JSON and CSV keep the full paths
    rows = as_json(ok(cli("pairs", "--db", cli_db, "--top", "3", "--format", "json")))
    assert all(os.path.isabs(row["a"]) and str(corpus) in row["a"] for row in rows)
    dup = ok(cli("duplicates", "--db", cli_db))
    assert "paths under" in dup.stdout and "essays/comets_dup.txt" in dup.stdout


def test_common_folder():
    from winnowdb.report.paths import below, common_folder

    assert common_folder(["/x/y/a.txt", "/x/y/z/b.txt"]) == "/x/y"
    assert common_folder(["/x/y/a.txt", "/x/y/a.txt"]) == ""  # one path: nothing to share
    assert common_folder(["/a.txt", "/b.txt"]) == ""  # the root is not worth naming
    assert common_folder(["x/a.txt", "/x/b.txt"]) == ""  # relative and absolute mixed
    assert common_folder(["x/a", "x/a/b.txt"]) == "x"  # x/a is a file here, so the folder is x
    assert common_folder(["essays/a.txt", "essays/b.txt"]) == "essays"
    assert below("/x/y/z/b.txt", "/x/y") == "z/b.txt" and below("/x/yz/b.txt", "/x/y") == "/x/yz/b.txt"


def test_pairs_min_shared_and_empty(cli, cli_db):
    assert as_json(cli("pairs", "--db", cli_db, "-f", "json", "--min-shared", "1000000")) == []
    r = ok(cli("pairs", "--db", cli_db, "--min-shared", "1000000"))
    assert "no pairs" in r.stdout


# ------------------------------------------------------------------ query
def test_query_ranks_the_copy_first(cli, cli_db, corpus):
    hits = as_json(cli("query", corpus / "essays/tides.txt", "--db", cli_db, "-f", "json"))
    assert hits and all(list(h) == QUERY_FIELDS for h in hits)
    assert Path(hits[0]["path"]) == corpus / "essays/tides_copy.txt"
    assert hits[0]["containment"] > 0.2 and hits[0]["contained"] > 0.2


def test_query_non_indexed_file(cli, cli_db, corpus, tmp_path):
    paragraph = (corpus / "essays/tides.txt").read_text().splitlines()[4]
    q = tmp_path / "homework.txt"
    q.write_text("My homework about the sea.\n\n" + paragraph.replace(". ", ".\n") + "\n")
    hits = as_json(cli("query", q, "--db", cli_db, "-f", "json", "--top", "0"))
    top2 = {Path(h["path"]).relative_to(corpus).as_posix() for h in hits[:2]}
    assert top2 == {"essays/tides.txt", "essays/tides_copy.txt"}
    r = ok(cli("query", q, "--db", cli_db, "--format", "csv"))
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert list(rows[0]) == QUERY_FIELDS and len(rows) == len(hits)


def test_query_top_zero_returns_all(cli, cli_db, corpus, tmp_path):
    # a query sharing text with every essay has more hits than the default --top of 10
    q = tmp_path / "anthology.txt"
    q.write_text("\n\n".join(p.read_text() for p in sorted((corpus / "essays").glob("*.txt"))))
    everything = as_json(cli("query", q, "--db", cli_db, "-f", "json", "--top", "0"))
    assert len(everything) == 16
    assert as_json(cli("query", q, "--db", cli_db, "-f", "json")) == everything[:10]
    assert as_json(cli("query", q, "--db", cli_db, "-f", "json", "--top", "2")) == everything[:2]


def test_query_missing_file(cli, cli_db, tmp_path):
    one_line_error(cli("query", tmp_path / "nope.txt", "--db", cli_db), "no such file")


# ------------------------------------------------------------------ compare
def test_compare_json_passage_lines(cli, cli_db, corpus):
    out = as_json(cli("compare", corpus / "essays/glaciers.txt", corpus / "essays/glaciers_paraphrase.txt",
                      "--db", cli_db, "-f", "json"))
    assert {"a", "b", "shared", "containment_a", "containment_b", "resemblance", "passages"} <= set(out)
    # the paraphrase re-punctuates the paragraph: prose (the default) finds it in two passages
    # (a comma put between "dense" and "blue" breaks every k-gram across it), together lines 5-8
    ps = out["passages"]
    assert len(ps) == 2 and all(p["lines_a"] == [5, 5] for p in ps)
    assert [p["lines_b"] for p in ps] == [[5, 6], [7, 8]]
    assert all(Path(p["path_a"]) == corpus / "essays/glaciers.txt" for p in ps)


def test_compare_table_and_csv(cli, cli_db, corpus):
    a, b = corpus / "essays/tides.txt", corpus / "essays/tides_copy.txt"
    r = ok(cli("compare", a, b, "--db", cli_db))
    assert "lines 5-5" in r.stdout
    r = ok(cli("compare", a, b, "--db", cli_db, "-f", "csv"))
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert len(rows) == 1 and json.loads(rows[0]["lines_a"]) == [5, 5]


# ------------------------------------------------------------------ add / edit / remove
def test_re_adding_unchanged_files_is_a_no_op(cli, fresh_index):
    corpus, db = fresh_index
    before = as_json(cli("sql", "SELECT doc, path, content_hash FROM documents ORDER BY doc", "--db", db, "-f", "json"))
    r = ok(cli("add", corpus / "essays", corpus / "code", "--db", db))
    assert summary(r).startswith("0 added, 0 updated, 21 unchanged, 0 skipped; 0 fingerprints")
    after = as_json(cli("sql", "SELECT doc, path, content_hash FROM documents ORDER BY doc", "--db", db, "-f", "json"))
    assert after == before


def test_editing_a_file_changes_its_pairs(cli, fresh_index):
    corpus, db = fresh_index
    paragraph = (corpus / "essays/comets.txt").read_text().splitlines()[2]
    origami = corpus / "essays/origami.txt"
    origami.write_text(origami.read_text() + "\n" + paragraph + "\n")
    r = ok(cli("add", corpus / "essays", corpus / "code", "--db", db))
    assert summary(r).startswith("0 added, 1 updated, 20 unchanged, 0 skipped")
    found = _pair_set(as_json(cli("pairs", "--db", db, "-f", "json", "--top", "0")), corpus)
    assert frozenset(("essays/comets.txt", "essays/origami.txt")) in found
    assert frozenset(("essays/comets_dup.txt", "essays/origami.txt")) in found
    n = as_json(cli("sql", f"SELECT COUNT(*) AS n FROM documents WHERE path = '{origami}'", "--db", db, "-f", "json"))
    assert n == [{"n": 1}]


def test_remove(cli, fresh_index):
    corpus, db = fresh_index
    target = corpus / "essays/comets_dup.txt"
    doc = as_json(cli("sql", f"SELECT doc FROM documents WHERE path = '{target}'", "--db", db, "-f", "json"))[0]["doc"]
    r = ok(cli("remove", target, "--db", db))
    assert "removed" in r.stdout and "comets_dup.txt" in r.stdout
    for table in ("documents", "fingerprints", "document_texts"):
        n = as_json(cli("sql", f"SELECT COUNT(*) AS n FROM {table} WHERE doc = {doc}", "--db", db, "-f", "json"))
        assert n == [{"n": 0}], table
    found = _pair_set(as_json(cli("pairs", "--db", db, "-f", "json", "--top", "0")), corpus)
    assert frozenset(("essays/comets.txt", "essays/comets_dup.txt")) not in found
    # removing it again: nothing matches
    one_line_error(cli("remove", target, "--db", db), "nothing in the index matches")


# ------------------------------------------------------------------ errors
def test_settings_mismatch_is_one_line(cli, fresh_index):
    corpus, db = fresh_index
    k = as_json(cli("sql", "SELECT value FROM settings WHERE key = 'k'", "--db", db, "-f", "json"))[0]["value"]
    before = db.read_bytes()
    err = one_line_error(cli("add", corpus / "essays", "--db", db, "--k", int(k) + 1), f"k={k}")
    assert "settings are fixed" in err
    assert db.read_bytes() == before


def test_missing_index_is_one_line(cli, tmp_path):
    db = tmp_path / "missing.duckdb"
    for args in (["pairs"], ["query", __file__], ["stats"], ["sql", "SELECT 1"], ["remove", __file__]):
        one_line_error(cli(*args, "--db", db), "no index")
        assert not db.exists()


def test_missing_index_short_path_is_one_line(cli, tmp_path, monkeypatch):
    # the same with a short relative path (a message that fits in 80 columns)
    monkeypatch.chdir(tmp_path)
    one_line_error(cli("pairs", "--db", "x.duckdb"), "no index at x.duckdb")
    assert not (tmp_path / "x.duckdb").exists()


def test_non_duckdb_file_is_one_line(cli, tmp_path, corpus):
    bad = tmp_path / "notes.txt"
    bad.write_text("not a database, just some notes\n" * 100)
    before = bad.read_bytes()
    one_line_error(cli("pairs", "--db", bad), "not a winnowdb index")
    one_line_error(cli("add", corpus / "essays/tides.txt", "--db", bad), "not a winnowdb index")
    assert bad.read_bytes() == before


def test_directory_as_db(cli, tmp_path):
    one_line_error(cli("pairs", "--db", tmp_path))


def test_bad_option_values(cli, cli_db):
    r = cli("pairs", "--db", cli_db, "--format", "xml")
    assert r.exit_code != 0 and "Traceback" not in r.output
    r = cli("pairs", "--db", cli_db, "--top", "-1")
    assert r.exit_code != 0 and "Traceback" not in r.output


# ------------------------------------------------------------------ sql
def test_sql_is_read_only_by_default(cli, fresh_index):
    corpus, db = fresh_index
    count = "SELECT COUNT(*) AS n FROM fingerprints"
    n = as_json(cli("sql", count, "--db", db, "-f", "json"))[0]["n"]
    assert n > 0
    one_line_error(cli("sql", "DELETE FROM fingerprints", "--db", db))
    assert as_json(cli("sql", count, "--db", db, "-f", "json")) == [{"n": n}]
    ok(cli("sql", "DELETE FROM fingerprints WHERE doc = 1", "--db", db, "--write"))
    assert as_json(cli("sql", count, "--db", db, "-f", "json"))[0]["n"] < n


def test_sql_output_formats(cli, cli_db):
    q = "SELECT key, value FROM settings WHERE key IN ('k', 'w') ORDER BY key"
    rows = as_json(cli("sql", q, "--db", cli_db, "-f", "json"))
    assert [r["key"] for r in rows] == ["k", "w"]
    r = ok(cli("sql", q, "--db", cli_db, "-f", "csv"))
    assert list(csv.DictReader(io.StringIO(r.stdout))) == rows
    one_line_error(cli("sql", "SELECT nonsense FROM nowhere", "--db", cli_db), "SQL error")


def test_sql_may_start_with_a_comment_or_come_from_stdin(cli, cli_db):
    q = "-- how many documents?\nSELECT COUNT(*) AS n FROM documents WHERE kind = 'document'"
    assert as_json(cli("sql", q, "--db", cli_db, "-f", "json")) == [{"n": 21}]
    from typer.testing import CliRunner

    r = CliRunner().invoke(app, ["sql", "-", "--db", str(cli_db), "-f", "json"], input=q + "\n")
    assert json.loads(ok(r).stdout) == [{"n": 21}]
    one_line_error(CliRunner().invoke(app, ["sql", "-", "--db", str(cli_db)], input="  \n"), "no SQL statement")


def test_stats_json(cli, cli_db):
    st = as_json(cli("stats", "--db", cli_db, "-f", "json"))
    assert st["documents"] == 21 and st["boilerplate"] == 1
    ok(cli("stats", "--db", cli_db))


def test_help(cli):
    r = ok(cli("--help"))
    for command in ("add", "remove", "query", "pairs", "compare", "stats", "sql"):
        assert command in r.stdout


def test_version(cli):
    from winnowdb.version import __version__

    for flag in ("--version", "-V"):
        assert ok(cli(flag)).stdout == f"winnowdb {__version__}\n"


# ------------------------------------------------------------------ the installed console script
def _winnowdb_exe():
    exe = shutil.which("winnowdb")
    if exe is None:
        bindir = Path(sys.executable).parent
        exe = str(bindir / "winnowdb")
    return exe


def test_console_script_end_to_end(index_db, corpus, tmp_path):
    env = dict(os.environ, COLUMNS="80")
    env.pop("WINNOWDB_DB", None)
    exe = _winnowdb_exe()

    def run(*args):
        return subprocess.run([exe, *map(str, args)], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=120)

    r = run("pairs", "--db", index_db, "--format", "json", "--top", "0")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert all(list(row) == PAIR_FIELDS for row in rows)
    found = _pair_set(rows, corpus)
    for a, b in PLANTED:
        assert frozenset((a, b)) in found
    # an error from the real process: exit status 2, one line, no traceback
    r = run("pairs", "--db", tmp_path / "no" / "such" / "index.duckdb")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith("error: no index")


def test_pairs_min_score_keeps_the_likely_copies(cli, cli_db, tmp_path):
    everything = as_json(cli("pairs", "--db", cli_db, "-f", "json", "--top", "0"))
    assert any(r["score"] < 0.5 for r in everything) and any(r["score"] >= 0.5 for r in everything)
    likely = [r for r in everything if r["score"] >= 0.5]
    assert as_json(cli("pairs", "--db", cli_db, "-f", "json", "--top", "0", "--min-score", "0.5")) == likely
    csv_rows = cli("pairs", "--db", cli_db, "-f", "csv", "--top", "0", "--min-score", "0.5").stdout.splitlines()
    assert len(csv_rows) == 1 + len(likely)
    assert cli("pairs", "--db", cli_db, "--min-score", "0.5").exit_code == 0  # the table too
    out = tmp_path / "report.html"
    r = cli("report", "--html", out, "--db", cli_db, "--top", "0", "--min-score", "0.5")
    assert r.exit_code == 0 and f"{len(likely)} pair" in r.stdout and "scoring at least 50.0%" in out.read_text()
    r = cli("pairs", "--db", cli_db, "--min-score", "2")
    assert r.exit_code != 0 and "--min-score" in r.output
