"""Hostile content: paths, labels and document text are data, never SQL; ``winnowdb sql`` cannot
change the index unless asked to (--write); content cannot restyle the terminal output.

The strongest check: DuckDB's own query log records the text of every statement winnowdb runs,
and a marker planted in file names, folder names, labels and document text must never appear in
it (values travel as bound parameters or registered Arrow tables, which the log does not show).
"""
from __future__ import annotations

from pathlib import Path

import pytest

import winnowdb

from .reliability_helpers import indexed_paths, one_line_error, raw_sql, run

MARK = "zq9marker"
EVIL_NAME = f"a'; DROP TABLE documents; --{MARK}.txt"
EVIL_DIR = f"dir \"{MARK}\" '); DELETE FROM fingerprints; --"
EVIL_LABEL = f"2024'); DROP TABLE fingerprints; --{MARK}"
EVIL_TEXT = (f"Robert'); DROP TABLE documents; -- {MARK} [bold red]not markup[/bold red] \x1b[31mred\x1b[0m "
             "and then the ordinary words of an essay about tides and the moon and the sea. ") * 12


@pytest.fixture()
def corpus(tmp_path):
    d = tmp_path / EVIL_DIR
    d.mkdir()
    (d / EVIL_NAME).write_text(EVIL_TEXT)
    (d / f"copy {MARK}.txt").write_text(EVIL_TEXT)
    (d / "plain.txt").write_text("Completely different words about glaciers, ice and mountains. " * 10)
    return d


def test_values_never_reach_sql_text(corpus, tmp_path):
    db = tmp_path / f"index {MARK}'.duckdb"
    idx = winnowdb.open(db)
    con = idx.store.connection
    con.execute("CALL enable_logging('QueryLog')")
    try:
        s = idx.add([corpus], label=EVIL_LABEL)
        assert s.added == 3 and not s.skipped
        (corpus / EVIL_NAME).write_text(EVIL_TEXT + " changed")
        s = idx.add([corpus], label=EVIL_LABEL)  # replaces the changed one, skips the others
        assert s.updated == 1 and s.unchanged == 2
        evil = corpus / EVIL_NAME
        hits = idx.query(evil)
        assert [Path(h["path"]).name for h in hits] == [f"copy {MARK}.txt"]
        cmp = idx.compare(evil, corpus / f"copy {MARK}.txt")
        assert cmp.passages
        assert idx.pairs(new_label=EVIL_LABEL)
        assert idx.pairs(new_label=f"' OR 1=1 --{MARK}") == []
        idx.stats()
        for optional in ("query_sketch", "simhash_query"):
            if hasattr(idx, optional):
                getattr(idx, optional)(evil)
        if hasattr(idx, "near_duplicates"):
            idx.near_duplicates()
        assert idx.remove([evil]) == [str(evil.resolve())]
        logged = [r[0] for r in con.execute("SELECT message FROM duckdb_logs WHERE type = 'QueryLog'").fetchall()]
    finally:
        idx.close()
    assert len(logged) > 20  # the log really recorded winnowdb's statements
    spliced = [q for q in logged if MARK in q]
    assert not spliced, f"values spliced into SQL text: {spliced[:3]}"
    # and the data went in verbatim
    rows = raw_sql(db, "SELECT d.path, d.label, t.text FROM documents d JOIN document_texts t ON t.doc = d.doc "
                       "ORDER BY d.path")
    assert [Path(p).name for p, _, _ in rows] == [f"copy {MARK}.txt", "plain.txt"]
    assert all(label == EVIL_LABEL for _, label, _ in rows)
    assert rows[0][2] == EVIL_TEXT


def test_cli_with_hostile_names(corpus, tmp_path):
    db = tmp_path / "cli.duckdb"
    r = run(["add", corpus, "--label", EVIL_LABEL, "--db", db])
    assert r.returncode == 0, r.stderr
    assert raw_sql(db, "SELECT COUNT(*) FROM documents")[0][0] == 3  # the table is still there
    r = run(["query", corpus / EVIL_NAME, "--db", db, "-f", "csv"])
    assert r.returncode == 0 and f"copy {MARK}.txt" in r.stdout
    r = run(["pairs", "--new", "' OR 1=1; DROP TABLE documents; --", "--db", db, "-f", "json"])
    assert r.returncode == 0 and r.stdout.strip() == "[]"
    r = run(["compare", corpus / EVIL_NAME, corpus / f"copy {MARK}.txt", "--db", db])
    assert r.returncode == 0
    # rich markup and escape sequences in the text are shown literally, never interpreted
    assert "[bold red]" in r.stdout and "[/bold" in r.stdout
    assert "\x1b" not in r.stdout  # the escape sequence in the text is neutralised
    r = run(["remove", corpus / EVIL_NAME, "--db", db])
    assert r.returncode == 0, r.stderr
    assert {Path(p).name for p in indexed_paths(db)} == {f"copy {MARK}.txt", "plain.txt"}
    assert run(["check", "--db", db]).returncode == 0


@pytest.mark.parametrize("statement", [
    "DELETE FROM documents",
    "DROP TABLE fingerprints",
    "UPDATE settings SET value = '3' WHERE key = 'k'",
    "CREATE TABLE mine (x INTEGER)",
    "INSERT INTO settings VALUES ('x', 'y')",
])
def test_sql_is_read_only_unless_write(corpus, tmp_path, statement):
    db = tmp_path / "ro.duckdb"
    assert run(["add", corpus, "--db", db]).returncode == 0
    before = db.read_bytes()
    r = run(["sql", statement, "--db", db])
    assert r.returncode == 2, r.stdout
    msg = one_line_error(r.stderr)
    assert msg.startswith("error: SQL error: ") and "read-only" in msg, msg
    assert db.read_bytes() == before
    r = run(["sql", "SELECT COUNT(*) AS n FROM documents", "--db", db, "-f", "csv"])
    assert r.returncode == 0 and r.stdout.split() == ["n", "3"]


def test_sql_write_changes_the_index(corpus, tmp_path):
    db = tmp_path / "rw.duckdb"
    assert run(["add", corpus, "--db", db]).returncode == 0
    r = run(["sql", "CREATE TABLE notes AS SELECT path FROM documents", "--write", "--db", db])
    assert r.returncode == 0, r.stderr
    assert raw_sql(db, "SELECT COUNT(*) FROM notes")[0][0] == 3
    assert run(["check", "--db", db]).returncode == 0  # an extra table is not damage


def test_sql_errors_are_one_line(corpus, tmp_path):
    db = tmp_path / "e.duckdb"
    assert run(["add", corpus, "--db", db]).returncode == 0
    for bad in ("SELEC nonsense", "SELECT * FROM no_such_table", "SELECT 1/0::INTEGER + 'x'"):
        r = run(["sql", bad, "--db", db])
        assert r.returncode == 2
        assert one_line_error(r.stderr).startswith("error: SQL error: ")


def test_a_hostile_index_file_cannot_make_duckdb_fetch_extensions(tmp_path):
    # a file that DuckDB would open with a downloaded extension (SQLite) is refused before
    # DuckDB sees it; inside an index, extension auto-install/auto-load is switched off
    sqlite = tmp_path / "x.duckdb"
    sqlite.write_bytes(b"SQLite format 3\x00" + bytes(4080))
    r = run(["stats", "--db", sqlite])
    assert r.returncode == 2 and "it is a SQLite database" in one_line_error(r.stderr)
    db = tmp_path / "idx.duckdb"
    with winnowdb.open(db) as idx:
        got = dict(idx.store.connection.execute(
            "SELECT name, value FROM duckdb_settings() WHERE name IN "
            "('autoinstall_known_extensions', 'autoload_known_extensions')").fetchall())
    assert got == {"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"}
