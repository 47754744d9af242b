"""Schema versioning: the index records its schema version; a newer one is refused with a clear
message; indexes written by older code (schema 1: the first release, 0.1.0, and the last commit
before schema 2, 0bc5588) are refused read-only with the way out, upgraded in one transaction by
``winnowdb upgrade`` (``sql/migrate_1_to_2.sql``), and then work exactly like an index made today.

The migration mechanism itself (``schema.MIGRATIONS``: applied once, atomically, recorded,
refused read-only, a missing step refused) is checked with a *test* migration from the current
schema to a pretend next one. The real 2 -> 3 step (the code's text family, issue 21), 3 -> 4
step (the common hashes kept apart, issue 20) and 4 -> 5 step (no UNIQUE index on paths, issue
19) are checked on indexes made today and aged back.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import duckdb
import pytest

import winnowdb
from winnowdb.errors import WinnowError
from winnowdb.settings import CODE_TEXT_DEFAULTS, CODE_TOKENS_VERSION
from winnowdb.store import schema as store_mod
from winnowdb.store.database import Store

from .reliability_helpers import WINNOWDB, one_line_error, raw_sql, run

#: the schema this winnowdb writes, and a test-only next one (the mechanism, not a real change)
NOW = store_mod.SCHEMA_VERSION
NEXT = NOW + 1

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]
#: what schema 1 kept in settings and schema 2 keeps in meta (or drops: the cache is recomputed)
BOOKKEEPING = {"views_digest", "max_removed_doc", "default_max_df_cache"}
#: the settings of the code's text family, which `upgrade` (and `import`) add to an older index
CODE_TEXT = {k: str(v) for k, v in CODE_TEXT_DEFAULTS.items()}


@pytest.fixture()
def index(tmp_path):
    db = tmp_path / "idx.duckdb"
    assert run(["add", REPO / "sample_corpus" / "essays", "--db", db]).returncode == 0
    return db


def test_the_index_records_its_schema_version(index):
    settings = dict(raw_sql(index, "SELECT key, value FROM settings"))
    assert settings["schema_version"] == str(store_mod.SCHEMA_VERSION) == "10"
    assert settings["hash_version"] and settings["created_by"].startswith("winnowdb ")
    assert not BOOKKEEPING & set(settings)  # the user-facing settings hold settings only
    meta = dict(raw_sql(index, "SELECT key, value FROM meta"))
    assert set(meta) <= set(store_mod.META_KEYS) and "views_digest" in meta


def test_a_newer_schema_is_refused_with_a_clear_message(index):
    raw_sql(index, f"UPDATE settings SET value = '{NEXT}' WHERE key = 'schema_version'")
    before = index.read_bytes()
    essay = REPO / "sample_corpus" / "essays" / "tides.txt"
    for args in (["add", essay], ["stats"], ["pairs"], ["query", essay], ["sql", "SELECT 1"], ["remove", essay],
                 ["upgrade"]):
        r = run([*args, "--db", index])
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        msg = one_line_error(r.stderr)
        assert f"was made by a newer winnowdb (schema {NEXT}; this version reads up to {NOW}): upgrade winnowdb" in msg
    assert index.read_bytes() == before
    r = run(["check", "--db", index])
    assert r.returncode == 1 and f"schema version {NEXT} is newer than this winnowdb reads" in r.stderr


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


# ---------------------------------------------------------------- indexes from older code
def _rebuild(fixture: str, db: Path) -> Path:
    """An index written by older code, rebuilt from its SQL dump (make_release_fixture.py)."""
    con = duckdb.connect(str(db))
    con.execute((FIXTURES / fixture).read_text(encoding="utf-8"))
    con.close()
    return db


@pytest.fixture()
def first_release(tmp_path):
    """Release 0.1.0 (29a102b): four essays, k=20, w=20, text normalizer."""
    return _rebuild("release_0.1.0_index.sql", tmp_path / "release-0.1.0.duckdb")


@pytest.fixture()
def schema1_last(tmp_path):
    """0bc5588, the last schema-1 commit: boilerplate, five essays (a sixth removed), two code files."""
    db = _rebuild("release_0bc5588_index.sql", tmp_path / "0bc5588.duckdb")
    # what that version stored on big indexes (not reached by this small one): a cached max-df
    raw_sql(db, "INSERT INTO settings VALUES ('default_max_df_cache', '3@1:2:3')")
    return db


def _fingerprint_rows(db: Path) -> list[tuple]:
    return raw_sql(db, "SELECT d.path, f.hash, f.pos FROM fingerprints f "
                       "JOIN documents d USING (doc) ORDER BY ALL")


def _pairs_by_name(db: Path, cmd=None) -> set[tuple]:
    r = run(["pairs", "--db", db, "--top", "0", "-f", "csv"], **({"cmd": cmd} if cmd else {}))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    return {tuple([Path(x).name for x in line.split(",")[:2]] + line.split(",")[2:]) for line in lines[1:]}


def test_an_old_index_is_refused_read_only_with_the_way_out(first_release, schema1_last):
    for db in (first_release, schema1_last):
        before = db.read_bytes()
        for args in (["stats"], ["pairs"], ["sql", "SELECT 1"]):
            r = run([*args, "--db", db])
            assert r.returncode == 2, (args, r.stdout, r.stderr)
            msg = one_line_error(r.stderr)
            assert f"has schema version 1; this winnowdb uses schema {NOW}: run `winnowdb upgrade" in msg, msg
        r = run(["check", "--db", db])
        assert r.returncode == 1 and f"schema version 1 is older than this winnowdb's ({NOW})" in r.stderr, r.stderr
        assert db.read_bytes() == before
        with pytest.raises(WinnowError, match="run `winnowdb upgrade"):
            winnowdb.open(db, read_only=True, create=False)


@pytest.mark.parametrize("which", ["first_release", "schema1_last"])
def test_upgrading_an_old_index_keeps_everything_and_it_then_works_like_a_new_one(which, request, tmp_path):
    db = request.getfixturevalue(which)
    old_settings = dict(raw_sql(db, "SELECT key, value FROM settings"))
    old_docs = raw_sql(db, "SELECT doc, path, submission, kind, normalizer, content_hash, units, fingerprints, "
                           "simhash FROM documents ORDER BY doc")
    old_rows = _fingerprint_rows(db)
    r = run(["upgrade", "--db", db])
    assert r.returncode == 0 and f"upgraded from schema version 1 to {NOW}" in r.stdout, r.stdout + r.stderr
    # every setting kept, bookkeeping moved out of them; documents and fingerprints unchanged
    settings = dict(raw_sql(db, "SELECT key, value FROM settings"))
    # (upgrade also fingerprints code again when the tokenizer changed since: its version moves on)
    tokens = {"code_tokens_version": CODE_TOKENS_VERSION} if "code_tokens_version" in old_settings else {}
    kept = {k: v for k, v in old_settings.items() if k not in BOOKKEEPING}
    assert settings == kept | {"schema_version": str(NOW)} | tokens | CODE_TEXT
    meta = dict(raw_sql(db, "SELECT key, value FROM meta"))
    if "max_removed_doc" in old_settings:
        assert meta["max_removed_doc"] == old_settings["max_removed_doc"]
    assert raw_sql(db, "SELECT doc, path, submission, kind, normalizer, content_hash, units, fingerprints, "
                       "simhash FROM documents ORDER BY doc") == old_docs
    assert _fingerprint_rows(db) == old_rows
    # the statistics schema 2 keeps equal a count over the rows (check recounts them)
    r = run(["check", "--db", db])
    assert r.returncode == 0, r.stdout + r.stderr
    # the same pairs as an index made today from the same files with the same settings and steps
    fresh = tmp_path / "fresh.duckdb"
    essays, code = REPO / "sample_corpus" / "essays", REPO / "sample_corpus" / "code"
    if which == "first_release":
        args = ["--k", "20", "--w", "20", "--normalizer", "text"]
        assert run(["add", *(essays / n for n in ("tides.txt", "tides_copy.txt", "comets.txt", "comets_dup.txt")),
                    "--db", fresh, *args]).returncode == 0
    else:
        assert run(["add", REPO / "sample_corpus" / "boilerplate", "--boilerplate", "--db", fresh]).returncode == 0
        assert run(["add", *(essays / n for n in ("tides.txt", "tides_copy.txt", "comets.txt", "comets_dup.txt",
                                                   "bees.txt", "origami.txt")), "--db", fresh]).returncode == 0
        assert run(["remove", essays / "origami.txt", "--db", fresh]).returncode == 0
        assert run(["add", code / "stack.py", code / "stack_renamed.py", "--db", fresh]).returncode == 0
    pairs = _pairs_by_name(db)
    assert pairs == _pairs_by_name(fresh) and len(pairs) >= 2
    # a fresh copy of an essay finds its original through the stored fingerprints
    probe = tmp_path / "probe.txt"
    probe.write_text((essays / "tides.txt").read_text())
    r = run(["query", probe, "--db", db, "-f", "csv"])
    assert r.returncode == 0 and "/sample_corpus/essays/tides.txt" in r.stdout, r.stdout
    # it can be added to, and ids of removed documents are never given again
    r = run(["add", probe, "--db", db])
    assert r.returncode == 0, r.stderr
    new_id = raw_sql(db, "SELECT doc FROM documents WHERE path LIKE '%probe.txt'")[0][0]
    assert new_id > max(d[0] for d in old_docs) and new_id > int(old_settings.get("max_removed_doc", 0))
    assert run(["check", "--db", db]).returncode == 0
    assert dict(raw_sql(db, "SELECT key, value FROM settings"))["schema_version"] == str(NOW)


def test_a_failing_upgrade_changes_nothing(schema1_last, monkeypatch):
    real = store_mod.MIGRATIONS[1]

    def broken(con):
        real(con)  # the whole real migration runs, then something fails
        raise RuntimeError("disk on fire")

    monkeypatch.setitem(store_mod.MIGRATIONS, 1, broken)
    before = raw_sql(schema1_last, "SELECT table_name, column_name FROM information_schema.columns ORDER BY ALL")
    rows = _fingerprint_rows(schema1_last)
    with pytest.raises(RuntimeError):
        Store.open(schema1_last)
    assert raw_sql(schema1_last, "SELECT table_name, column_name FROM information_schema.columns "
                                 "ORDER BY ALL") == before
    assert _fingerprint_rows(schema1_last) == rows
    assert dict(raw_sql(schema1_last, "SELECT key, value FROM settings"))["schema_version"] == "1"


# ---------------------------------------------------------------- the migration mechanism
@pytest.fixture()
def pretend_next_schema(monkeypatch):
    """A test-only schema NEXT: schema NOW plus a ``notes`` table (not a real winnowdb change)."""
    calls = []

    def to_next(con):
        calls.append(1)
        con.execute("CREATE TABLE notes (doc INTEGER, note VARCHAR)")

    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", NEXT)
    monkeypatch.setitem(store_mod.MIGRATIONS, NOW, to_next)
    return calls


def test_migration_upgrades_once_and_records_it(index, pretend_next_schema):
    with Store.open(index) as s:
        assert s.upgraded_from == NOW
        assert s.settings["schema_version"] == str(NEXT)
        assert s.connection.execute("SELECT COUNT(*) FROM notes").fetchall() == [(0,)]
    with Store.open(index) as s:  # already upgraded: nothing runs again
        assert s.upgraded_from is None
    assert pretend_next_schema == [1]
    assert dict(raw_sql(index, "SELECT key, value FROM settings"))["schema_version"] == str(NEXT)


def test_read_only_open_of_an_older_schema_says_how_to_upgrade(index, pretend_next_schema):
    with pytest.raises(WinnowError) as err:
        winnowdb.open(index, read_only=True, create=False)
    assert f"has schema version {NOW}; this winnowdb uses schema {NEXT}: run `winnowdb upgrade" in str(err.value)
    assert pretend_next_schema == []
    assert dict(raw_sql(index, "SELECT key, value FROM settings"))["schema_version"] == str(NOW)


def test_a_missing_migration_step_is_refused(index, monkeypatch):
    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", NEXT + 1)
    monkeypatch.setitem(store_mod.MIGRATIONS, NEXT, lambda con: None)  # NOW -> NEXT is missing
    monkeypatch.delitem(store_mod.MIGRATIONS, NOW, raising=False)
    with pytest.raises(WinnowError, match=f"has schema version {NOW}, which this winnowdb cannot upgrade"):
        Store.open(index)


def test_upgrade_command(index, tmp_path):
    r = run(["upgrade", "--db", index])
    assert r.returncode == 0 and (f"already has the current schema (version {NOW}) and no code from an older "
                                  "tokenizer; nothing to do") in r.stdout
    # the command with the pretend schema NEXT (in a child process, as a user would run it)
    code = (f"import sys\nfrom winnowdb.store import schema as store\nstore.SCHEMA_VERSION = {NEXT}\n"
            f"store.MIGRATIONS[{NOW}] = lambda con: con.execute('CREATE TABLE notes (x INTEGER)')\n"
            "from winnowdb.cli import main\nsys.argv = ['winnowdb'] + sys.argv[1:]\nmain()\n")
    cmd = [sys.executable, "-c", code]
    r = run(["stats", "--db", index], cmd=cmd)  # read-only: refuses, says how
    assert r.returncode == 2 and "run `winnowdb upgrade" in one_line_error(r.stderr)
    r = run(["upgrade", "--db", index], cmd=cmd)
    assert r.returncode == 0 and f"upgraded from schema version {NOW} to {NEXT}" in r.stdout, r.stderr
    assert run(["stats", "--db", index], cmd=cmd).returncode == 0
    r = run(["stats", "--db", index], cmd=WINNOWDB)  # and this (schema NOW) winnowdb now refuses it
    assert r.returncode == 2 and f"newer winnowdb (schema {NEXT}" in one_line_error(r.stderr)


def _export_as_schema_1_did(db: Path, out: Path) -> None:
    """The Parquet export (format 1) winnowdb 0.1 wrote of a schema-1 index: every base table,
    fingerprints partitioned by hash bucket, and the manifest."""
    import json

    con = duckdb.connect(str(db), read_only=True)
    out.mkdir()
    tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables "
                                        "WHERE table_type = 'BASE TABLE' ORDER BY 1").fetchall()]
    for table in tables:
        (out / table).mkdir()
        if table == "fingerprints":
            con.execute(f"COPY (SELECT *, ((hash % 3) + 3) % 3 AS bucket FROM fingerprints) TO '{out / table}' "
                        "(FORMAT parquet, PARTITION_BY (bucket))")
        else:
            con.execute(f"COPY {table} TO '{out / table / 'part-0.parquet'}' (FORMAT parquet)")
    settings = dict(con.execute("SELECT key, value FROM settings").fetchall())
    rows = {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchall()[0][0] for t in tables}
    con.close()
    (out / "_winnowdb.json").write_text(json.dumps({
        "format": "winnowdb-parquet", "version": 1, "winnowdb": "0.1.0", "buckets": 3, "settings": settings,
        "tables": {t: {"rows": n} for t, n in rows.items()}}))


def test_an_export_of_schema_1_imports_as_a_current_index(schema1_last, tmp_path):
    out = tmp_path / "export-0.1"
    _export_as_schema_1_did(schema1_last, out)
    old_settings = dict(raw_sql(schema1_last, "SELECT key, value FROM settings"))
    # read in place it is refused with the way out (its documents lack the columns queries use)
    con = duckdb.connect()
    from winnowdb.store.export import duckdb_views

    with pytest.raises(WinnowError, match=r"format 1, now 3\): import it"):
        duckdb_views(con, out)
    con.close()
    imported = tmp_path / "imported.duckdb"
    r = run(["import", "--parquet", out, "--db", imported])
    assert r.returncode == 0, r.stdout + r.stderr
    # its statistics equal a count over its rows, its bookkeeping moved to meta
    r = run(["check", "--db", imported])
    assert r.returncode == 0, r.stdout + r.stderr
    settings = dict(raw_sql(imported, "SELECT key, value FROM settings"))
    assert settings == {k: v for k, v in old_settings.items() if k not in BOOKKEEPING} | {"schema_version": str(NOW)} \
        | CODE_TEXT
    assert dict(raw_sql(imported, "SELECT key, value FROM meta"))["max_removed_doc"] == \
        old_settings["max_removed_doc"]
    assert _fingerprint_rows(imported) == _fingerprint_rows(schema1_last)
    # and it answers as the same index upgraded in place
    assert run(["upgrade", "--db", schema1_last]).returncode == 0
    assert _pairs_by_name(imported) == _pairs_by_name(schema1_last)
    assert raw_sql(imported, "SELECT path, sub, hashes FROM documents ORDER BY doc") == \
        raw_sql(schema1_last, "SELECT path, sub, hashes FROM documents ORDER BY doc")


# ---------------------------------------------------------------- schema 2 -> 3: the code's text family
def _age_to_schema_2(db: Path) -> None:
    """Make ``db`` what schema 2 stored: no code_text_hashes table, no text family settings (and
    nothing of schemas 4 and 5)."""
    _age_to_schema_3(db)
    raw_sql(db, "DROP TABLE code_text_hashes")
    raw_sql(db, "DELETE FROM settings WHERE key IN ('code_text_k', 'code_text_w')")
    raw_sql(db, "UPDATE settings SET value = '2' WHERE key = 'schema_version'")


def _scores(db: Path) -> set[tuple]:
    r = run(["pairs", "--db", db, "--top", "0", "-f", "csv"])
    assert r.returncode == 0, r.stderr
    return {tuple(line.split(",")[:3]) for line in r.stdout.splitlines()[1:]}


def test_a_schema_2_index_gets_the_code_text_family_from_upgrade(tmp_path):
    db = tmp_path / "old.duckdb"
    code = REPO / "sample_corpus" / "code"
    assert run(["add", code, REPO / "sample_corpus" / "essays", "--db", db]).returncode == 0
    want_rows = raw_sql(db, "SELECT d.path, t.hash FROM code_text_hashes t JOIN documents d USING (doc) ORDER BY ALL")
    want_scores = _scores(db)
    assert want_rows
    _age_to_schema_2(db)
    r = run(["pairs", "--db", db])  # read-only: refused with the way out
    assert r.returncode == 2 and f"has schema version 2; this winnowdb uses schema {NOW}" in one_line_error(r.stderr)
    # a write migrates it (the empty table), and says what the code lacks until upgrade adds it
    extra = tmp_path / "extra.py"
    extra.write_text((code / "stack.py").read_text() + "\nprint('extra')\n")
    r = run(["add", extra, "--db", db])
    assert r.returncode == 0 and "its pairs are scored by their code tokens alone" in r.stderr, r.stderr
    assert raw_sql(db, "SELECT COUNT(*) FROM code_text_hashes") == [(0,)]  # no half family: none at all
    r = run(["check", "--db", db])
    assert r.returncode == 0 and "no text family" in r.stdout + r.stderr, r.stdout + r.stderr
    assert run(["remove", extra, "--db", db]).returncode == 0
    r = run(["upgrade", "--db", db])
    assert r.returncode == 0 and "fingerprinted as a second family of evidence" in r.stdout, r.stdout + r.stderr
    got = raw_sql(db, "SELECT d.path, t.hash FROM code_text_hashes t JOIN documents d USING (doc) ORDER BY ALL")
    assert got == want_rows
    assert _scores(db) == want_scores
    r = run(["check", "--db", db])
    assert r.returncode == 0 and "no text family" not in r.stdout + r.stderr
    r = run(["upgrade", "--db", db])
    assert "nothing to do" in r.stdout


# ---------------------------------------------------------------- schema 3 -> 4: the common hashes
COMMON = ("Every essay in this class opens with the same paragraph, which the handout gave to all "
          "of the students, so that its sentences are found in every submission of the term. ")


def _class(folder: Path, n: int, first: int = 0) -> Path:
    """``n`` essays that all open with the same paragraph (more common than the default max-df)
    and go on in words of their own; essay 1 copies essay 0's own words."""
    import random

    folder.mkdir(exist_ok=True)
    for i in range(first, first + n):
        rng = random.Random(i if i != 1 else 0)
        own = " ".join("".join(rng.choice("abcdefghij") for _ in range(rng.randint(3, 8))) for _ in range(160))
        (folder / f"essay{i:03d}.txt").write_text(COMMON + own + "\n")
    return folder


def _age_to_schema_9(db: Path) -> None:
    """Make ``db`` what schema 9 stored: no table of removed documents whose rows are still stored."""
    raw_sql(db, "DROP TABLE documents_removed", "UPDATE settings SET value = '9' WHERE key = 'schema_version'")


def _age_to_schema_8(db: Path) -> None:
    """Make ``db`` what schema 8 stored: the text family's document frequencies a view, not a table
    (and nothing of schema 10)."""
    from winnowdb.store import sqlfiles

    _age_to_schema_9(db)
    raw_sql(db, "DROP VIEW IF EXISTS pairs", "DROP VIEW IF EXISTS code_text_max_df", "DROP TABLE code_text_df",
            f"CREATE VIEW code_text_df AS {sqlfiles.load('code_text_df_counted')}",
            "UPDATE settings SET value = '8' WHERE key = 'schema_version'")


def _age_to_schema_7(db: Path) -> None:
    """Make ``db`` what schema 7 stored: no index on the documents' paths (and nothing of schema 9)."""
    _age_to_schema_8(db)
    raw_sql(db, "DROP INDEX documents_path", "UPDATE settings SET value = '7' WHERE key = 'schema_version'")


def _age_to_schema_3(db: Path) -> None:
    """Make ``db`` what schema 3 stored: no common_hashes table, nothing in meta about it (and
    nothing of schemas 4 to 8)."""
    _age_to_schema_7(db)
    raw_sql(db, "DROP TABLE common_hashes")
    raw_sql(db, "DELETE FROM meta WHERE key = 'common_hashes_max_df'")
    raw_sql(db, "UPDATE settings SET value = '3' WHERE key = 'schema_version'")


def _common(db: Path) -> tuple[int, list[tuple]]:
    """(the max-df common_hashes is kept for, its rows), after checking them against shared_hashes."""
    floor = int(dict(raw_sql(db, "SELECT key, value FROM meta"))["common_hashes_max_df"])
    rows = raw_sql(db, "SELECT hash, df FROM common_hashes ORDER BY hash")
    assert rows == raw_sql(db, f"SELECT hash, df FROM shared_hashes WHERE df > {floor} ORDER BY hash")
    return floor, rows


def _query(db: Path, doc: Path, *args) -> list[str]:
    r = run(["query", doc, "--db", db, "--format", "csv", "--top", "0", *args])
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def _compare(db: Path, a: Path, b: Path, *args) -> str:
    r = run(["compare", a, b, "--db", db, "--format", "json", *args])
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_common_hashes_follow_every_write(tmp_path):
    db = tmp_path / "idx.duckdb"
    essays = _class(tmp_path / "essays", 48)
    assert run(["add", essays, "--db", db]).returncode == 0
    floor, rows = _common(db)
    assert floor == 12 and rows  # a quarter of 48 submissions; the handout's hashes are in all 48
    doc = essays / "essay000.txt"
    want = _query(db, doc)
    assert want[1].split(",")[0].endswith("essay001.txt")
    _class(essays, 52, first=48)  # a second add: 100 submissions, the default max-df rises
    assert run(["add", essays, "--db", db]).returncode == 0
    floor, rows = _common(db)
    assert floor == 25 and rows
    changed = essays / "essay050.txt"  # a changed file (without the handout), then removed ones
    changed.write_text(changed.read_text().replace(COMMON, ""))
    assert run(["add", essays, "--db", db]).returncode == 0
    assert _common(db)[1] != rows
    assert run(["remove", *sorted(essays.glob("essay09*.txt")), "--db", db]).returncode == 0
    _common(db)
    assert run(["check", "--db", db]).returncode == 0
    # read from common_hashes (the default max-df, a larger one) or from every df (a smaller
    # one, or an index whose common_hashes serves none): the same answers
    caps = ((), ("--max-df", "200"), ("--max-df", "5"))
    other = essays / "essay001.txt"
    got = [_query(db, doc, *args) for args in caps]
    compared = [_compare(db, doc, other, *args) for args in caps]
    raw_sql(db, "DELETE FROM meta WHERE key = 'common_hashes_max_df'")
    assert [_query(db, doc, *args) for args in caps] == got
    assert [_compare(db, doc, other, *args) for args in caps] == compared
    assert len(got[0]) == 2 and len(got[1]) == 1 + 88  # above 200 the handout counts: 88 others hold it
    assert compared[0] != compared[1]  # ... and in compare's sizes too
    raw_sql(db, "INSERT INTO meta VALUES ('common_hashes_max_df', '25')")
    raw_sql(db, "DELETE FROM common_hashes WHERE hash IN (SELECT MIN(hash) FROM common_hashes)")
    r = run(["check", "--db", db])
    assert r.returncode != 0 and "common hashes: 1 problem" in r.stdout + r.stderr, r.stdout + r.stderr


def test_a_schema_3_index_gets_its_common_hashes_from_the_migration(tmp_path):
    db = tmp_path / "old.duckdb"
    essays = _class(tmp_path / "essays", 48)
    assert run(["add", essays, "--db", db]).returncode == 0
    want_common = _common(db)
    doc = essays / "essay000.txt"
    want = _query(db, doc), _query(db, doc, "--max-df", "5")
    _age_to_schema_3(db)
    r = run(["query", doc, "--db", db])  # read-only: refused with the way out
    assert r.returncode == 2 and f"has schema version 3; this winnowdb uses schema {NOW}" in one_line_error(r.stderr)
    r = run(["upgrade", "--db", db])
    assert r.returncode == 0 and f"upgraded from schema version 3 to {NOW}" in r.stdout, r.stdout + r.stderr
    assert _common(db) == want_common
    assert (_query(db, doc), _query(db, doc, "--max-df", "5")) == want
    assert run(["check", "--db", db]).returncode == 0


def test_an_import_fills_common_hashes_anew(tmp_path):
    db, out, imported = tmp_path / "idx.duckdb", tmp_path / "export", tmp_path / "imported.duckdb"
    assert run(["add", _class(tmp_path / "essays", 48), "--db", db]).returncode == 0
    assert run(["export", "--parquet", out, "--db", db]).returncode == 0
    assert (out / "common_hashes").is_dir()  # exported, but counted anew on import, not copied
    assert run(["import", "--parquet", out, "--db", imported]).returncode == 0
    assert _common(imported) == _common(db)
    assert run(["check", "--db", imported]).returncode == 0


_PATH_KEYS = "SELECT table_name FROM duckdb_constraints() WHERE constraint_type = 'UNIQUE' ORDER BY 1"


def _age_to_schema_4(db: Path) -> None:
    """Make ``db`` what schema 4 stored: documents and documents_pending with UNIQUE(path) (and
    without the files' times of schema 6)."""
    _age_to_schema_7(db)
    con = duckdb.connect(str(db))
    try:
        for table in ("documents", "documents_pending"):
            con.execute(f"CREATE TABLE old_{table} AS SELECT * EXCLUDE (mtime_ns, ctime_ns) FROM {table}")
            ddl = con.execute("SELECT sql FROM duckdb_tables() WHERE table_name = ?", [table]).fetchall()[0][0]
            assert "path VARCHAR NOT NULL," in ddl and ", mtime_ns BIGINT, ctime_ns BIGINT" in ddl
            con.execute(f"DROP TABLE {table}")
            con.execute(ddl.replace("path VARCHAR NOT NULL,", "path VARCHAR NOT NULL UNIQUE,")
                        .replace(", mtime_ns BIGINT, ctime_ns BIGINT", ""))
            con.execute(f"INSERT INTO {table} SELECT * FROM old_{table} ORDER BY doc")
            con.execute(f"DROP TABLE old_{table}")
        con.execute("UPDATE settings SET value = '4' WHERE key = 'schema_version'")
        assert [r[0] for r in con.execute(_PATH_KEYS).fetchall()] == ["documents", "documents_pending"]
    finally:
        con.close()


def test_a_schema_4_index_loses_its_unique_path_index_and_nothing_else(tmp_path):
    # schema 5 keeps no UNIQUE index on paths (add keeps them unique; check verifies it): the
    # migration makes the two tables again with the same rows, and the index answers as before
    db = tmp_path / "old.duckdb"
    essays = _class(tmp_path / "essays", 12)
    assert run(["add", essays, "--db", db]).returncode == 0
    assert raw_sql(db, _PATH_KEYS) == []
    documents = raw_sql(db, "SELECT * FROM documents ORDER BY doc")
    doc = essays / "essay000.txt"
    want = _query(db, doc)
    # and a new version of essay001 left pending, as a stopped add leaves one (its text kept)
    raw_sql(db, "INSERT INTO documents_pending SELECT doc + 1000, path, submission, label, kind, normalizer, "
                "content_hash, normalized_hash, encoding, bytes, chars, units, fingerprints, simhash, added_at, "
                "sub, hashes, doc, mtime_ns, ctime_ns FROM documents WHERE path LIKE '%essay001.txt'",
            "INSERT INTO document_texts SELECT doc + 1000, text FROM document_texts "
            "WHERE doc = (SELECT doc FROM documents WHERE path LIKE '%essay001.txt')")
    pending = raw_sql(db, "SELECT * FROM documents_pending ORDER BY doc")
    assert len(pending) == 1
    _age_to_schema_4(db)
    assert raw_sql(db, "SELECT * FROM documents ORDER BY doc") == [r[:-2] for r in documents]  # no times
    r = run(["upgrade", "--db", db])
    assert r.returncode == 0 and f"upgraded from schema version 4 to {NOW}" in r.stdout, r.stdout + r.stderr
    assert raw_sql(db, _PATH_KEYS) == []
    assert raw_sql(db, "SELECT * FROM documents ORDER BY doc") == documents
    assert raw_sql(db, "SELECT * FROM documents_pending ORDER BY doc") == pending
    assert _query(db, doc) == want
    assert run(["check", "--db", db]).returncode == 0
    (essays / "essay000.txt").write_text("changed " * 300)  # a new version replaces the row of its path
    assert run(["add", essays, "--db", db]).returncode == 0
    assert raw_sql(db, "SELECT COUNT(*), COUNT(DISTINCT path) FROM documents") == [(12, 12)]
    assert raw_sql(db, "SELECT COUNT(*) FROM documents_pending") == [(0,)]  # the next write indexed it
    assert raw_sql(db, "SELECT COUNT(*) FROM documents WHERE doc = ?", params=[pending[0][0]]) == [(1,)]
    assert run(["check", "--db", db]).returncode == 0


def test_a_schema_5_index_gets_the_files_times_on_its_next_add(tmp_path):
    # schema 6 records the files' times: the migration adds the columns, NULL, the next add
    # reads each file once (content unchanged) and records them, and the one after that trusts
    # them (tests/ingest/test_unchanged.py shows the files are then not read)
    import os
    import time

    db = tmp_path / "old.duckdb"
    essays = _class(tmp_path / "essays", 6)
    old = time.time_ns() - 3600 * 10**9
    for f in essays.iterdir():
        os.utime(f, ns=(old, old))
    assert run(["add", essays, "--db", db]).returncode == 0
    documents = raw_sql(db, "SELECT * EXCLUDE (mtime_ns, ctime_ns) FROM documents ORDER BY doc")
    _age_to_schema_7(db)
    raw_sql(db, *(f"ALTER TABLE {t} DROP COLUMN {c}" for t in ("documents", "documents_pending")
                  for c in ("mtime_ns", "ctime_ns")),
            "UPDATE settings SET value = '5' WHERE key = 'schema_version'")
    r = run(["upgrade", "--db", db])
    assert r.returncode == 0 and f"upgraded from schema version 5 to {NOW}" in r.stdout, r.stdout + r.stderr
    assert raw_sql(db, "SELECT * EXCLUDE (mtime_ns, ctime_ns) FROM documents ORDER BY doc") == documents
    assert raw_sql(db, "SELECT COUNT(mtime_ns), COUNT(ctime_ns) FROM documents") == [(0, 0)]
    assert run(["check", "--db", db]).returncode == 0
    r = run(["add", essays, "--db", db])
    assert r.returncode == 0 and r.stdout.startswith("0 added, 0 updated, 6 unchanged"), r.stdout + r.stderr
    assert raw_sql(db, "SELECT COUNT(mtime_ns), COUNT(ctime_ns) FROM documents") == [(6, 6)]
    r = run(["add", essays, "--db", db])
    assert r.returncode == 0 and r.stdout.startswith("0 added, 0 updated, 6 unchanged"), r.stdout + r.stderr
    assert raw_sql(db, "SELECT * EXCLUDE (mtime_ns, ctime_ns) FROM documents ORDER BY doc") == documents
    assert run(["check", "--db", db]).returncode == 0


def test_one_row_per_path_without_a_unique_index(tmp_path):
    # what the UNIQUE index refused before schema 5, add never writes: a file listed again (its
    # folder twice, the file itself, a link to it) is one document, and a new version replaces it
    import os

    db = tmp_path / "idx.duckdb"
    essays = _class(tmp_path / "essays", 6)
    os.symlink(essays / "essay001.txt", tmp_path / "alias.txt")
    r = run(["add", essays, essays, essays / "essay000.txt", tmp_path / "alias.txt", "--db", db])
    assert r.returncode == 0 and r.stdout.startswith("6 added"), r.stdout + r.stderr
    (essays / "essay002.txt").write_text("a new version " * 200)
    r = run(["add", essays / "essay002.txt", essays, "--db", db])
    assert r.returncode == 0 and r.stdout.startswith("0 added, 1 updated"), r.stdout + r.stderr
    assert raw_sql(db, "SELECT COUNT(*), COUNT(DISTINCT path) FROM documents") == [(6, 6)]
    assert run(["check", "--db", db]).returncode == 0


def test_a_schema_6_index_loses_the_spans_and_shows_the_same_passages(tmp_path):
    # schema 7 stores (hash, doc, pos): the spans in the original text are computed from the stored
    # texts when passages are shown. The migration drops the two columns; every row, pair, query
    # and passage (with its span and text) stays as it was
    import json

    db = tmp_path / "old.duckdb"
    essays = _class(tmp_path / "essays", 8)
    assert run(["add", essays, "--db", db]).returncode == 0
    rows = _fingerprint_rows(db)
    pairs = _pairs_by_name(db)
    a, b = essays / "essay000.txt", essays / "essay001.txt"
    want = _compare(db, a, b)
    passages = json.loads(want)["passages"]
    assert passages and all(p["text_a"] and p["start_a"] < p["end_a"] for p in passages)
    # schema 6: the spans stored beside each row (their values do not matter to the migration)
    _age_to_schema_7(db)
    raw_sql(db, "ALTER TABLE fingerprints ADD COLUMN start_offset INTEGER DEFAULT 0",
            "ALTER TABLE fingerprints ADD COLUMN end_offset INTEGER DEFAULT 1",
            "UPDATE settings SET value = '6' WHERE key = 'schema_version'")
    r = run(["compare", a, b, "--db", db])  # a read-only open refuses an older schema
    assert r.returncode == 2 and "winnowdb upgrade" in r.stderr, r.stderr
    r = run(["upgrade", "--db", db])
    assert r.returncode == 0 and f"upgraded from schema version 6 to {NOW}" in r.stdout, r.stdout + r.stderr
    assert [c for (c,) in raw_sql(db, "SELECT column_name FROM duckdb_columns() "
                                      "WHERE table_name = 'fingerprints' ORDER BY column_index")] == \
        ["hash", "doc", "pos"]
    assert _fingerprint_rows(db) == rows
    assert _pairs_by_name(db) == pairs
    assert _compare(db, a, b) == want
    assert run(["check", "--db", db]).returncode == 0


def test_a_schema_7_index_gets_the_path_index_and_reads_the_same(tmp_path):
    # schema 8 keeps an index on the documents' paths (query, compare and report look a path up
    # through it); the migration builds it, and every row, pair and query stays as it was
    import json

    db = tmp_path / "old.duckdb"
    essays = _class(tmp_path / "essays", 8)
    assert run(["add", essays, "--db", db]).returncode == 0
    index_sql = "SELECT index_name, table_name, expressions FROM duckdb_indexes() WHERE NOT is_primary"
    assert raw_sql(db, index_sql) == [("documents_path", "documents", "[path]")]
    a, b = essays / "essay000.txt", essays / "essay001.txt"
    want = _compare(db, a, b)
    pairs = _pairs_by_name(db)
    r = run(["query", a, "--db", db, "-f", "json"])
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)
    assert hits
    _age_to_schema_7(db)
    assert raw_sql(db, index_sql) == []
    r = run(["query", a, "--db", db])  # a read-only open refuses an older schema
    assert r.returncode == 2 and "winnowdb upgrade" in r.stderr, r.stderr
    r = run(["upgrade", "--db", db])
    assert r.returncode == 0 and f"upgraded from schema version 7 to {NOW}" in r.stdout, r.stdout + r.stderr
    assert raw_sql(db, index_sql) == [("documents_path", "documents", "[path]")]
    r = run(["query", a, "--db", db, "-f", "json"])
    assert r.returncode == 0 and json.loads(r.stdout) == hits, r.stderr
    assert _compare(db, a, b) == want
    assert _pairs_by_name(db) == pairs
    assert run(["check", "--db", db]).returncode == 0


def test_a_schema_8_index_keeps_the_text_family_frequencies_and_reads_the_same(tmp_path):
    # schema 9 keeps the text family's df per hash in the table code_text_df (a view before, which
    # every code query and pairs run counted again); the migration fills it, every write keeps it
    import json
    import shutil

    from conftest import REPO

    db = tmp_path / "old.duckdb"
    code = tmp_path / "code"
    shutil.copytree(REPO / "sample_corpus" / "code", code)
    assert run(["add", code, "--db", db]).returncode == 0
    kept = raw_sql(db, "SELECT hash, df FROM code_text_df ORDER BY hash")
    assert kept and raw_sql(db, "SELECT table_type FROM information_schema.tables "
                                "WHERE table_name = 'code_text_df'") == [("BASE TABLE",)]
    pairs = _pairs_by_name(db)
    r = run(["query", code / "stack.py", "--db", db, "-f", "json"])
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)
    assert any(h.get("score", 0) > 0 for h in hits)
    _age_to_schema_8(db)
    r = run(["upgrade", "--db", db])
    assert r.returncode == 0 and f"upgraded from schema version 8 to {NOW}" in r.stdout, r.stdout + r.stderr
    assert raw_sql(db, "SELECT hash, df FROM code_text_df ORDER BY hash") == kept
    r = run(["query", code / "stack.py", "--db", db, "-f", "json"])
    assert r.returncode == 0 and json.loads(r.stdout) == hits, r.stderr
    assert _pairs_by_name(db) == pairs
    assert run(["check", "--db", db]).returncode == 0
    # a removal and an add keep it counted (check compares it with a count of the rows)
    assert run(["remove", code / "stack_renamed.py", "--db", db]).returncode == 0
    assert run(["check", "--db", db]).returncode == 0
    (code / "stack_copy.py").write_text((code / "stack.py").read_text())
    assert run(["add", code, "--db", db]).returncode == 0
    assert run(["check", "--db", db]).returncode == 0
    assert raw_sql(db, "SELECT COUNT(*) FROM code_text_df WHERE df >= 2")[0][0] > 0


def test_a_schema_9_index_gets_the_table_of_removed_documents_and_reads_the_same(tmp_path):
    # schema 10 records the removed documents whose fingerprint rows are deleted after the removal
    # commits (store/purge.py); a read-only open of a schema 9 index asks for the upgrade
    import json

    db = tmp_path / "old.duckdb"
    essays = _class(tmp_path / "essays", 6)
    assert run(["add", essays, "--db", db]).returncode == 0
    some = sorted(essays.iterdir())[0]
    r = run(["query", some, "--db", db, "-f", "json"])
    assert r.returncode == 0, r.stderr
    hits, pairs = json.loads(r.stdout), _pairs_by_name(db)
    _age_to_schema_9(db)
    r = run(["query", some, "--db", db])
    assert r.returncode != 0 and "winnowdb upgrade" in r.stderr, r.stderr
    r = run(["upgrade", "--db", db])
    assert r.returncode == 0 and f"upgraded from schema version 9 to {NOW}" in r.stdout, r.stdout + r.stderr
    assert raw_sql(db, "SELECT COUNT(*) FROM documents_removed") == [(0,)]
    r = run(["query", some, "--db", db, "-f", "json"])
    assert r.returncode == 0 and json.loads(r.stdout) == hits, r.stderr
    assert _pairs_by_name(db) == pairs
    assert run(["remove", some, "--db", db]).returncode == 0
    assert run(["check", "--db", db]).returncode == 0


def test_a_lost_path_index_is_reported_by_check_and_made_again_by_upgrade(tmp_path):
    db = tmp_path / "idx.duckdb"
    essays = _class(tmp_path / "essays", 4)
    assert run(["add", essays, "--db", db]).returncode == 0
    raw_sql(db, "DROP INDEX documents_path")
    r = run(["check", "--db", db])
    assert r.returncode == 1 and "table documents has lost its INDEX (path)" in r.stdout + r.stderr, r.stdout + r.stderr
    assert "winnowdb upgrade" in r.stdout + r.stderr
    r = run(["upgrade", "--db", db])
    assert r.returncode == 0 and "the index of the documents' paths made again" in r.stdout, r.stdout + r.stderr
    assert raw_sql(db, "SELECT index_name FROM duckdb_indexes() WHERE NOT is_primary") == [("documents_path",)]
    assert run(["check", "--db", db]).returncode == 0
    r = run(["upgrade", "--db", db])  # nothing left to do
    assert r.returncode == 0 and "nothing to do" in r.stdout, r.stdout + r.stderr
