"""``winnowdb check``: a healthy index passes; each kind of damage, made with raw DuckDB SQL (or by
overwriting bytes of the file), is reported by name with exit status 1; a file that is not an
index at all gets one line and exit status 2."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from winnowdb.store.check import check_index
from winnowdb.store.schema import SCHEMA_VERSION

from .reliability_helpers import one_line_error, raw_sql, run

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def healthy(tmp_path_factory):
    d = tmp_path_factory.mktemp("healthy")
    corpus = d / "corpus"
    for sub in ("essays", "code", "boilerplate"):
        shutil.copytree(REPO / "sample_corpus" / sub, corpus / sub)
    db = d / "index.duckdb"
    assert run(["add", corpus / "boilerplate", "--boilerplate", "--db", db]).returncode == 0
    assert run(["add", corpus / "essays", corpus / "code", "--db", db]).returncode == 0
    return db


@pytest.fixture()
def damaged(healthy, tmp_path):
    db = tmp_path / "damaged.duckdb"
    shutil.copy(healthy, db)
    return db


def test_healthy_index_passes(healthy):
    r = run(["check", "--db", healthy])
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stderr == ""
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ok: ") and "20 checks passed" in lines[0], r.stdout
    report = json.loads(run(["check", "--db", healthy, "-f", "json"]).stdout)
    assert report["ok"] is True and report["problems"] == []
    assert report["totals"]["documents"] == 22  # 21 essays and code files + 1 boilerplate


def test_check_shows_its_progress_on_a_terminal(healthy):
    steps: list[tuple[int, int]] = []
    assert check_index(healthy, on_check=lambda done, total: steps.append((done, total))).ok
    total = steps[0][1]
    assert [d for d, _ in steps] == list(range(total)) and all(t == total for _, t in steps)  # every query, in order
    r = run(["check", "--db", healthy], env=dict(os.environ, TTY_COMPATIBLE="1"))  # rich: stderr is a terminal
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.startswith("ok: ") and "20 checks passed" in r.stdout, r.stdout


def test_check_is_read_only(healthy):
    before = healthy.read_bytes()
    assert run(["check", "--db", healthy]).returncode == 0
    assert healthy.read_bytes() == before
    assert not Path(str(healthy) + ".wal").exists()


def _unkeyed(table: str) -> list[str]:
    """Statements that rebuild ``table`` without its keys (which refuse duplicates otherwise)."""
    return [f"CREATE TABLE {table}_copy AS SELECT * FROM {table}", f"DROP TABLE {table}",
            f"ALTER TABLE {table}_copy RENAME TO {table}"]


def _pending_copy_of(doc: int, replaces: str) -> str:
    """A statement that leaves document ``doc``'s row pending again, as a stopped add would, as a
    new document (id + 1000) replacing ``replaces`` (a document id, or NULL)."""
    return ("INSERT INTO documents_pending SELECT doc + 1000, path, submission, label, kind, normalizer, "
            "content_hash, normalized_hash, encoding, bytes, chars, units, fingerprints, simhash, added_at, sub, "
            f"hashes, {replaces}, mtime_ns, ctime_ns FROM documents WHERE doc = {doc}")


# (id, SQL that damages the index, check name reported, words in the report)
DAMAGE = [
    ("duplicate-setting", [*_unkeyed("settings"), "INSERT INTO settings VALUES ('k', '5')"], "settings keys",
     "'k' is stored 2 times"),
    ("lost-key", _unkeyed("documents"), "keys", "table documents has lost its PRIMARY KEY (doc)"),
    ("lost-path-index", ["DROP INDEX documents_path"], "keys", "table documents has lost its INDEX (path)"),
    ("missing-setting", ["DELETE FROM settings WHERE key = 'hash_version'"], "settings",
     "required setting 'hash_version' is missing"),
    ("bad-k", ["UPDATE settings SET value = 'zero' WHERE key = 'k'"], "settings", "not a positive whole number"),
    ("unknown-normalizer", ["UPDATE settings SET value = 'klingon' WHERE key = 'normalizer'"], "settings",
     "normalizer 'klingon' is unknown"),
    ("other-hash", ["UPDATE settings SET value = 'md5-v0' WHERE key = 'hash_version'"], "settings",
     "would not match the stored fingerprints"),
    ("future-schema", [f"UPDATE settings SET value = '{SCHEMA_VERSION + 1}' WHERE key = 'schema_version'"],
     "settings", f"schema version {SCHEMA_VERSION + 1} is newer than this winnowdb reads"),
    ("old-schema", ["UPDATE settings SET value = '0' WHERE key = 'schema_version'"], "settings",
     "schema version 0 is older"),
    ("duplicate-doc-id", [*_unkeyed("documents"), "UPDATE documents SET doc = 1 WHERE doc = 2"], "document ids",
     "document id 1 is used by 2 rows"),
    ("duplicate-path", ["UPDATE documents SET path = (SELECT path FROM documents WHERE doc = 1) WHERE doc = 2"],
     "paths", "is indexed 2 times"),  # no key refuses it (schema 5): add keeps one row per path
    ("pending-duplicate-path", [_pending_copy_of(1, replaces="NULL")], "paths", "is indexed 2 times"),
    ("lost-fingerprints", ["DELETE FROM fingerprints WHERE doc = 3 AND pos < 60"], "fingerprint counts",
     "fingerprint rows"),
    ("orphan-fingerprints", ["INSERT INTO fingerprints VALUES (42, 9999, 0)"], "orphan fingerprints",
     "belong to document id 9999, which does not exist"),
    ("orphan-text", ["INSERT INTO document_texts VALUES (9999, 'stray')"], "orphan texts", "document id 9999"),
    ("missing-text", ["DELETE FROM document_texts WHERE doc = 4"], "texts", "has no stored text"),
    ("two-texts", [*_unkeyed("document_texts"),
                   "INSERT INTO document_texts SELECT doc, text FROM document_texts WHERE doc = 4"], "texts",
     "has 2 stored texts"),
    ("changed-text", ["UPDATE document_texts SET text = text || 'more' WHERE doc = 5"], "texts",
     "recorded"),
    ("position-outside-text", ["UPDATE fingerprints SET pos = 99999999 WHERE doc = 6"], "fingerprint positions",
     "fingerprints outside its text"),
    ("bad-kind", ["UPDATE documents SET kind = 'weird' WHERE doc = 7"], "document values", "kind 'weird'"),
    ("negative-size", ["UPDATE documents SET units = -3 WHERE doc = 7"], "document values", "units -3"),
    ("stale-text-df", ["UPDATE code_text_df SET df = df + 1 WHERE hash = (SELECT MIN(hash) FROM code_text_df)"],
     "text family frequencies", "kept document frequency"),
    ("dropped-table", ["DROP TABLE document_texts"], "tables", "table document_texts is missing"),
    ("dropped-column", ["DROP INDEX documents_path", "ALTER TABLE documents DROP COLUMN simhash"], "tables",
     "column documents.simhash is missing"),
]


@pytest.mark.parametrize("statements,check,words", [d[1:] for d in DAMAGE], ids=[d[0] for d in DAMAGE])
def test_each_kind_of_damage_is_reported(damaged, statements, check, words):
    raw_sql(damaged, "DROP VIEW IF EXISTS pairs", *statements)  # views may depend on what is damaged
    r = run(["check", "--db", damaged])
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
    report = r.stderr
    assert report.splitlines()[0].startswith(f"{damaged}: ") and "checks found problems" in report
    assert f"  {check}: " in report, report
    assert words in report, report
    data = check_index(damaged).to_dict()  # the same report as `check -f json`, in-process
    assert data["ok"] is False and check in [p["check"] for p in data["problems"]]


@pytest.mark.parametrize("statement", [
    "INSERT INTO settings VALUES ('k', '5')",
    "UPDATE documents SET doc = 1 WHERE doc = 2",
    # (a path twice is not refused by a key since schema 5: add keeps paths unique and check
    # reports a duplicate, the "duplicate-path" damage above)
    "INSERT INTO document_texts SELECT doc, text FROM document_texts WHERE doc = 4",
    "INSERT INTO meta SELECT * FROM meta",
])
def test_the_keys_refuse_duplicates(damaged, statement):
    import duckdb

    with pytest.raises(duckdb.ConstraintException, match="[Dd]uplicate key"):
        raw_sql(damaged, statement)
    assert run(["check", "--db", damaged]).returncode == 0


def test_an_unfinished_text_family_is_not_reported_as_stale(damaged):
    # an interrupted `winnowdb upgrade` that fills the text family leaves some of its rows and its
    # settings unrecorded; code_text_df is counted when the upgrade finishes, not before
    raw_sql(damaged, "DELETE FROM settings WHERE key IN ('code_text_k', 'code_text_w')",
            "UPDATE code_text_df SET df = df + 1")
    r = run(["check", "--db", damaged])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no text family" in r.stdout + r.stderr


def test_many_problems_are_summarised(damaged):
    raw_sql(damaged, "INSERT INTO fingerprints SELECT 1, 5000 + range, 0 FROM range(40)")
    r = run(["check", "--db", damaged])
    assert r.returncode == 1
    assert "orphan fingerprints: 40 problems" in r.stderr
    assert "... and 35 more" in r.stderr


def test_damaged_bytes_are_reported_not_crashed_on(damaged):
    # overwrite part of each block that holds table data, in turn: DuckDB's block checksums catch
    # it, and the user gets a report (exit 1) or one line (exit 2, when DuckDB cannot even open
    # the file) -- never a traceback, never "ok"
    import duckdb

    con = duckdb.connect(str(damaged), read_only=True)
    blocks = sorted({r[0] for t in ("settings", "documents", "document_texts", "fingerprints")
                     for r in con.execute(f"SELECT DISTINCT block_id FROM pragma_storage_info('{t}') "
                                          "WHERE block_id >= 0").fetchall()})
    block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
    con.close()
    assert blocks
    original = damaged.read_bytes()
    for block in blocks:
        start = 3 * 4096 + block * block_size  # after DuckDB's three 4 KiB headers
        data = bytearray(original)
        data[start + 500: start + 756] = b"\xde\xad\xbe\xef" * 64
        damaged.write_bytes(bytes(data))
        r = run(["check", "--db", damaged])
        assert "Traceback" not in r.stderr
        assert r.returncode in (1, 2), f"block {block}: {r.stdout + r.stderr}"
        if r.returncode == 2:
            assert "is damaged" in one_line_error(r.stderr)
        else:
            assert "Corrupt database file" in r.stderr and "checks found problems" in r.stderr
        r = run(["stats", "--db", damaged])  # other commands: one line, no traceback
        assert "Traceback" not in r.stderr


@pytest.mark.parametrize("content,words", [
    (b"just some text, not a database\n", "is not a winnowdb index (not a DuckDB database file)"),
    (b"", "is not a winnowdb index (not a DuckDB database file)"),
    (bytes(range(256)) * 100, "is not a winnowdb index (not a DuckDB database file)"),
])
def test_not_an_index(tmp_path, content, words):
    f = tmp_path / "notes.duckdb"
    f.write_bytes(content)
    r = run(["check", "--db", f])
    assert r.returncode == 2 and words in one_line_error(r.stderr)
    assert f.read_bytes() == content


def test_plain_duckdb_file_and_missing_file(tmp_path):
    other = tmp_path / "other.duckdb"
    raw_sql(other, "CREATE TABLE t (x INTEGER)")
    r = run(["check", "--db", other])
    assert r.returncode == 2 and "is a DuckDB file but not a winnowdb index" in one_line_error(r.stderr)
    r = run(["check", "--db", tmp_path / "nothing.duckdb"])
    assert r.returncode == 2 and "no index at" in one_line_error(r.stderr)
    r = run(["check", "--db", tmp_path])
    assert r.returncode == 2 and "is a directory, not an index file" in one_line_error(r.stderr)


def test_a_pending_new_version_of_a_file_is_not_a_duplicate(damaged):
    # a stopped add leaves a changed file's new version pending, replacing its indexed row: the
    # path is there twice until the next write moves it, and that is healthy
    raw_sql(damaged, _pending_copy_of(1, replaces="1"))
    r = run(["check", "--db", damaged])
    assert r.returncode == 0 and "committed by an add that was stopped" in r.stdout + r.stderr, r.stdout + r.stderr
