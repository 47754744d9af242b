"""Schema versioning: the index records its schema version; a newer one is refused with a clear
message; an index written by the first release (0.1.0, schema 1) opens and works; the upgrade
mechanism (``store.MIGRATIONS``) upgrades older schemas in one transaction.

Schema 1 is the first and only schema so far, so there is no real older schema to upgrade. The
migration tests below say so: they register a *test* migration from schema 1 to a pretend
schema 2 and check the mechanism (applied once, atomically, recorded, refused read-only).
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import duckdb
import pytest

import winnowdb
from winnowdb.store import schema as store_mod
from winnowdb.errors import WinnowError
from winnowdb.store.database import Store

from .reliability_helpers import WINNOWDB, one_line_error, raw_sql, run

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "release_0.1.0_index.sql"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def index(tmp_path):
    db = tmp_path / "idx.duckdb"
    assert run(["add", REPO / "sample_corpus" / "essays", "--db", db]).returncode == 0
    return db


def test_the_index_records_its_schema_version(index):
    rows = dict(raw_sql(index, "SELECT key, value FROM settings"))
    assert rows["schema_version"] == str(store_mod.SCHEMA_VERSION) == "1"
    assert rows["hash_version"] and rows["created_by"].startswith("winnowdb ")


def test_a_newer_schema_is_refused_with_a_clear_message(index):
    raw_sql(index, "UPDATE settings SET value = '2' WHERE key = 'schema_version'")
    before = index.read_bytes()
    essay = REPO / "sample_corpus" / "essays" / "tides.txt"
    for args in (["add", essay], ["stats"], ["pairs"], ["query", essay], ["sql", "SELECT 1"], ["remove", essay],
                 ["upgrade"]):
        r = run([*args, "--db", index])
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        msg = one_line_error(r.stderr)
        assert "was made by a newer winnowdb (schema 2; this version reads up to 1): upgrade winnowdb" in msg
    assert index.read_bytes() == before
    r = run(["check", "--db", index])
    assert r.returncode == 1 and "schema version 2 is newer than this winnowdb reads" in r.stderr


def test_an_unknown_or_missing_version_is_refused(index, tmp_path):
    other = tmp_path / "other.duckdb"
    shutil.copy(index, other)
    raw_sql(index, "UPDATE settings SET value = 'one' WHERE key = 'schema_version'")
    r = run(["stats", "--db", index])
    assert r.returncode == 2 and "unreadable schema version 'one'" in one_line_error(r.stderr)
    raw_sql(other, "DELETE FROM settings WHERE key = 'schema_version'")
    r = run(["stats", "--db", other])
    assert r.returncode == 2
    msg = one_line_error(r.stderr)
    assert "has schema version 0, which this winnowdb cannot upgrade" in msg and "re-create the index" in msg


@pytest.fixture()
def release_index(tmp_path):
    """The index written by release 0.1.0, rebuilt from its SQL dump."""
    db = tmp_path / "release-0.1.0.duckdb"
    con = duckdb.connect(str(db))
    con.execute(FIXTURE.read_text(encoding="utf-8"))
    con.close()
    return db


def test_an_index_from_the_first_release_opens_and_works(release_index, tmp_path):
    db = release_index
    r = run(["check", "--db", db])
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(["stats", "--db", db, "-f", "json"])
    assert r.returncode == 0, r.stderr
    r = run(["pairs", "--db", db, "-f", "csv"])
    assert r.returncode == 0, r.stderr
    pairs = {tuple(sorted(Path(x).name for x in line.split(",")[:2])) for line in r.stdout.splitlines()[1:]}
    assert ("tides.txt", "tides_copy.txt") in pairs and ("comets.txt", "comets_dup.txt") in pairs
    # the fingerprints it stored are the ones this version computes: a fresh copy of an essay,
    # not in the index, finds its original through them
    probe = tmp_path / "probe.txt"
    probe.write_text((REPO / "sample_corpus" / "essays" / "tides.txt").read_text())
    r = run(["query", probe, "--db", db, "-f", "csv"])
    assert r.returncode == 0 and "/winnowdb-0.1.0/sample_corpus/essays/tides.txt" in r.stdout, r.stdout
    # read-only use changes nothing in the file, and reads through this version's views (created
    # as temporary views of the connection), not the ones 0.1.0 stored
    before = db.read_bytes()
    r = run(["sql", "SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal ORDER BY view_name", "--db", db,
             "-f", "csv"])
    assert r.returncode == 0 and r.stdout.split()[1:] == [
        "boilerplate_hashes", "default_max_df", "document_fingerprints", "fingerprint_df", "pairs"], r.stdout
    assert db.read_bytes() == before
    # and it can be added to with its own settings (k=20, w=20, text), then still checks out
    r = run(["add", probe, "--db", db])
    assert r.returncode == 0, r.stderr
    settings = dict(raw_sql(db, "SELECT key, value FROM settings"))
    assert (settings["k"], settings["w"], settings["normalizer"], settings["schema_version"]) == ("20", "20", "text", "1")
    assert run(["check", "--db", db]).returncode == 0


# ---------------------------------------------------------------- the migration mechanism
@pytest.fixture()
def pretend_schema_2(monkeypatch):
    """A test-only schema 2: schema 1 plus a ``notes`` table (not a real winnowdb change)."""
    calls = []

    def to_2(con):
        calls.append(1)
        con.execute("CREATE TABLE notes (doc INTEGER, note VARCHAR)")

    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(store_mod.MIGRATIONS, 1, to_2)
    return calls


def test_migration_upgrades_once_and_records_it(index, pretend_schema_2):
    with Store.open(index) as s:
        assert s.upgraded_from == 1
        assert s.settings["schema_version"] == "2"
        assert s.connection.execute("SELECT COUNT(*) FROM notes").fetchall() == [(0,)]
    with Store.open(index) as s:  # already upgraded: nothing runs again
        assert s.upgraded_from is None
    assert pretend_schema_2 == [1]
    assert dict(raw_sql(index, "SELECT key, value FROM settings"))["schema_version"] == "2"


def test_read_only_open_of_an_older_schema_says_how_to_upgrade(index, pretend_schema_2):
    with pytest.raises(WinnowError) as err:
        winnowdb.open(index, read_only=True, create=False)
    assert "has schema version 1; this winnowdb uses schema 2: run `winnowdb upgrade" in str(err.value)
    assert pretend_schema_2 == []
    assert dict(raw_sql(index, "SELECT key, value FROM settings"))["schema_version"] == "1"


def test_a_failing_migration_changes_nothing(index, monkeypatch):
    def broken(con):
        con.execute("CREATE TABLE notes (doc INTEGER)")
        con.execute("DELETE FROM documents")
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(store_mod.MIGRATIONS, 1, broken)
    before = raw_sql(index, "SELECT COUNT(*) FROM documents")[0][0]
    with pytest.raises(RuntimeError):
        Store.open(index)
    assert raw_sql(index, "SELECT COUNT(*) FROM documents")[0][0] == before
    assert dict(raw_sql(index, "SELECT key, value FROM settings"))["schema_version"] == "1"
    tables = {r[0] for r in raw_sql(index, "SELECT table_name FROM information_schema.tables")}
    assert "notes" not in tables


def test_a_missing_migration_step_is_refused(index, monkeypatch):
    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", 3)
    monkeypatch.setitem(store_mod.MIGRATIONS, 2, lambda con: None)  # 1 -> 2 is missing
    with pytest.raises(WinnowError, match="has schema version 1, which this winnowdb cannot upgrade"):
        Store.open(index)


def test_upgrade_command(index, tmp_path):
    r = run(["upgrade", "--db", index])
    assert r.returncode == 0 and "already has the current schema (version 1) and no code from an older tokenizer; nothing to do" in r.stdout
    # the command with the pretend schema 2 (in a child process, as a user would run it)
    code = ("import sys\nfrom winnowdb.store import schema as store\nstore.SCHEMA_VERSION = 2\n"
            "store.MIGRATIONS[1] = lambda con: con.execute('CREATE TABLE notes (x INTEGER)')\n"
            "from winnowdb.cli import main\nsys.argv = ['winnowdb'] + sys.argv[1:]\nmain()\n")
    cmd = [sys.executable, "-c", code]
    r = run(["stats", "--db", index], cmd=cmd)  # read-only: refuses, says how
    assert r.returncode == 2 and "run `winnowdb upgrade" in one_line_error(r.stderr)
    r = run(["upgrade", "--db", index], cmd=cmd)
    assert r.returncode == 0 and "upgraded from schema version 1 to 2" in r.stdout, r.stderr
    assert run(["stats", "--db", index], cmd=cmd).returncode == 0
    r = run(["stats", "--db", index], cmd=WINNOWDB)  # and this (schema 1) winnowdb now refuses it
    assert r.returncode == 2 and "newer winnowdb (schema 2" in one_line_error(r.stderr)
