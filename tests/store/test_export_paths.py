"""Export and import paths reach DuckDB as bound parameters (COPY ... TO ?, read_parquet(?)),
spelled into the SQL only where DuckDB cannot bind them (a CREATE VIEW), and odd folder names
(quotes, $, spaces) work either way."""
from __future__ import annotations

import duckdb
import pytest

import winnowdb
from winnowdb.store import export

#: a folder name that is SQL-hostile in every way a path can be without glob characters
ODD = "it's a \"folder\" -- $p; /* x */"


class Recording:
    """A DuckDB connection that notes every statement executed on it (and its parameters)."""

    def __init__(self, con):
        self._con = con
        self.statements: list[tuple[str, object]] = []

    def execute(self, sql, params=None):
        self.statements.append((sql, params))
        return self._con.execute(sql) if params is None else self._con.execute(sql, params)

    def cursor(self):  # an index file's connections are cursors of the connection that attached it
        rec = Recording(self._con.cursor())
        rec.statements = self.statements
        return rec

    def __getattr__(self, name):
        return getattr(self._con, name)


def _spelled(statements, path) -> list[str]:
    """The statements whose SQL text holds ``path`` (rather than a parameter), as it is or as a
    string literal spells it."""
    forms = (str(path), str(path).replace("'", "''"))
    return [sql for sql, _ in statements if any(form in sql for form in forms)]


@pytest.fixture
def exported(index_db, tmp_path):
    out = tmp_path / ODD / "export"
    with winnowdb.open(index_db, read_only=True) as idx:
        rec = Recording(idx.store.connection)
        manifest = export.export_parquet(rec, out, buckets=3, texts=True)
    return out, manifest, rec.statements


def test_export_binds_its_target_paths(exported):
    out, manifest, statements = exported
    copies = [(sql, params) for sql, params in statements if sql.lstrip().startswith("COPY")]
    assert len(copies) == len(manifest["tables"])
    assert all("TO ?" in sql or "TO $" in sql for sql, _ in copies)
    assert _spelled(statements, out) == [] and _spelled(statements, ODD) == []
    assert {p.name for p in (out / "fingerprints").iterdir()} == {"bucket=0", "bucket=1", "bucket=2"}


def test_import_binds_its_source_paths_and_keeps_the_index(exported, index_db, tmp_path, monkeypatch):
    out, manifest, _ = exported
    made = []
    real_connect = duckdb.connect

    def connect(*args, **kwargs):
        made.append(Recording(real_connect(*args, **kwargs)))
        return made[-1]

    monkeypatch.setattr(duckdb, "connect", connect)
    db = tmp_path / ODD / "imported.duckdb"
    counts = export.import_parquet(out, db)
    monkeypatch.setattr(duckdb, "connect", real_connect)
    statements = [s for rec in made for s in rec.statements]
    assert any("read_parquet(?" in sql or "read_parquet($" in sql for sql, _ in statements)
    assert _spelled(statements, out) == []
    assert counts["fingerprints"] == manifest["tables"]["fingerprints"]["rows"]
    query = "SELECT path, encoding, content_hash FROM documents ORDER BY path"
    with winnowdb.open(db, read_only=True) as new, winnowdb.open(index_db, read_only=True) as old:
        assert new.sql(query) == old.sql(query)
        assert new.pairs(top=0) == old.pairs(top=0)


def test_views_over_an_export_spell_the_path_only_in_create_view(exported, index_db):
    """A view cannot take a bound parameter (DuckDB: "Unexpected prepared parameter"), so its
    read_parquet path is a quoted literal; the views answer as the index does."""
    out, _, _ = exported
    rec = Recording(duckdb.connect())
    names = export.duckdb_views(rec, out)
    spelled = _spelled(rec.statements, out)
    assert spelled and all(sql.startswith("CREATE OR REPLACE VIEW") for sql in spelled)
    assert len(spelled) == len(names)
    with winnowdb.open(index_db, read_only=True) as idx:
        assert rec.execute("SELECT a, b, shared FROM pairs ORDER BY a, b").fetchall() == \
            sorted((p["a"], p["b"], p["shared"]) for p in idx.pairs(top=0))


def test_import_pairs_binds_its_source_path(index_db, tmp_path):
    pairs_dir = tmp_path / ODD / "pairs"
    pairs_dir.mkdir(parents=True)
    with winnowdb.open(index_db, read_only=True) as idx:
        idx.store.connection.execute("COPY (SELECT * FROM pairs) TO ? (FORMAT parquet)",
                                     [str(pairs_dir / "part-0.parquet")])
        expected = idx.sql("SELECT COUNT(*) FROM pairs")[1][0][0]
    con = Recording(duckdb.connect())
    assert export.import_pairs(con, pairs_dir) == expected > 0
    assert _spelled(con.statements, pairs_dir) == []


def test_a_format_2_export_with_spans_is_read_in_place_and_imported(exported, index_db, tmp_path):
    """Before index schema 7 an export's fingerprints also held start_offset and end_offset
    (format 2): it is still read in place (the views leave the two columns out) and imported."""
    import json

    out, _, _ = exported
    con = duckdb.connect()
    for part in sorted((out / "fingerprints").rglob("*.parquet")):  # add the spans, as format 2 had them
        con.execute("COPY (SELECT *, CAST(pos AS INTEGER) AS start_offset, CAST(pos + 5 AS INTEGER) AS end_offset "
                    "FROM read_parquet(?)) TO ? (FORMAT parquet)", [str(part), str(part) + ".new"])
        (part.parent / (part.name + ".new")).replace(part)
    manifest = json.loads((out / export.MANIFEST).read_text())
    (out / export.MANIFEST).write_text(json.dumps({**manifest, "version": 2}))
    assert con.execute("SELECT COUNT(*) FROM parquet_schema(?) WHERE name = 'end_offset'",
                       [str(next((out / "fingerprints").rglob("*.parquet")))]).fetchall()[0][0] == 1
    with winnowdb.open(index_db, read_only=True) as idx:
        want = sorted((p["a"], p["b"], p["shared"]) for p in idx.pairs(top=0))
    view = duckdb.connect()
    export.duckdb_views(view, out)
    assert [c for (c,) in view.execute("SELECT column_name FROM (DESCRIBE fingerprints)").fetchall()] == \
        ["hash", "doc", "pos"]
    assert view.execute("SELECT a, b, shared FROM pairs ORDER BY a, b").fetchall() == want
    export.import_parquet(out, tmp_path / "imported.duckdb")
    with winnowdb.open(tmp_path / "imported.duckdb", read_only=True) as idx:
        assert sorted((p["a"], p["b"], p["shared"]) for p in idx.pairs(top=0)) == want


def test_an_import_counts_the_kept_statistics_as_the_exported_index_kept_them(tmp_path):
    # import counts shared_hashes, boilerplate_hashes and meta.distinct_hashes anew, a bucket of
    # hashes at a time: they equal the exported index's own, and `check` recounts them whole
    from pathlib import Path

    from winnowdb.store.check import check_index

    corpus = Path(__file__).resolve().parents[2] / "sample_corpus"
    db, new, out = tmp_path / "i.duckdb", tmp_path / "imported.duckdb", tmp_path / "ex"
    with winnowdb.open(db) as idx:
        idx.add([corpus / "boilerplate"], boilerplate=True)
        idx.add([corpus / "essays", corpus / "code"])
    queries = {"shared": "SELECT hash, df FROM shared_hashes ORDER BY hash",
               "boilerplate": "SELECT hash FROM boilerplate_hashes ORDER BY hash",
               "distinct": "SELECT value FROM meta WHERE key = 'distinct_hashes'"}

    def kept(path):
        con = duckdb.connect(str(path), read_only=True)
        try:
            return {name: con.execute(q).fetchall() for name, q in queries.items()}
        finally:
            con.close()

    before = kept(db)
    assert before["shared"] and before["boilerplate"] and int(before["distinct"][0][0]) > 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        export.export_parquet(con, out)
    finally:
        con.close()
    export.import_parquet(out, new)
    assert kept(new) == before
    assert check_index(new).ok


def test_an_import_reports_its_steps_and_shows_them_on_a_terminal(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from winnowdb.store.buckets import BUCKETS

    corpus = Path(__file__).resolve().parents[2] / "sample_corpus"
    db, out = tmp_path / "i.duckdb", tmp_path / "ex"
    with winnowdb.open(db) as idx:
        idx.add([corpus / "essays"])
    con = duckdb.connect(str(db), read_only=True)
    try:
        export.export_parquet(con, out)  # no texts: the import reads them back from the files
    finally:
        con.close()
    steps: list[tuple[str, int, int]] = []
    export.import_parquet(out, tmp_path / "a.duckdb", read_text=lambda path, digest: None,
                          on_step=lambda what, done, total: steps.append((what, done, total)))
    kinds = [w for i, (w, _, _) in enumerate(steps) if i == 0 or steps[i - 1][0] != w]
    assert kinds == ["copying the tables", "reading the texts", "counting the statistics"], kinds
    assert [(d, t) for w, d, t in steps if w == "counting the statistics"] == [(p, BUCKETS) for p in range(BUCKETS)]
    assert all(0 <= d < t for _, d, t in steps)
    r = subprocess.run([sys.executable, "-m", "winnowdb", "import", "--parquet", str(out), "--db",
                        str(tmp_path / "b.duckdb")], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, TTY_COMPATIBLE="1"))  # rich: stderr is a terminal
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.startswith("imported "), r.stdout
