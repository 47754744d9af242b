"""A re-add takes files whose size and recorded time are unchanged for unchanged without reading
them (ingest/unchanged.py); times recorded only once settled; the first re-add of an index
without times records them; exports leave them out. Real files, a real DuckDB index."""
from __future__ import annotations

import os
import time
from pathlib import Path

import duckdb
import pytest

import winnowdb
from winnowdb.ingest.unchanged import SETTLED_NS, recorded_mtime
from winnowdb.ingest.walk import walk

TEXT = "The tide came in over the flats and the herons rose from the reeds at dusk. " * 12
HOUR_NS = 3600 * 10**9


def _corpus(root: Path, n: int = 4, age_ns: int = HOUR_NS) -> list[Path]:
    root.mkdir(parents=True, exist_ok=True)
    files = []
    for i in range(n):
        f = root / f"doc{i}.txt"
        f.write_text(f"document {i}. " + TEXT)
        t = time.time_ns() - age_ns
        os.utime(f, ns=(t, t))
        files.append(f)
    return files


def _rows(db: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _same_size_edit(f: Path) -> None:
    """New content of the same size, and the file's old time set back (as ``touch -d`` would)."""
    st = f.stat()
    text = f.read_text()
    f.write_text(text.replace("herons", "egrets", 1))
    assert f.stat().st_size == st.st_size
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_settled_times_are_recorded_and_trusted(tmp_path):
    files = _corpus(tmp_path / "c")
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        s = idx.add([tmp_path / "c"])
    assert s.added == 4
    stored = dict(_rows(db, "SELECT path, mtime_ns FROM documents"))
    assert stored == {str(f.resolve()): f.stat().st_mtime_ns for f in files}

    # a same-size edit with its time set back is not seen: the file is not read again
    _same_size_edit(files[0])
    with winnowdb.open(db) as idx:
        s = idx.add([tmp_path / "c"])
    assert (s.added, s.updated, s.unchanged) == (0, 0, 4)
    text = _rows(db, f"SELECT t.text FROM document_texts t JOIN documents d USING (doc) "
                     f"WHERE d.path = '{files[0].resolve()}'")[0][0]
    assert "herons" in text and "egrets" not in text

    # once its time moves on, it is read and found changed
    t = time.time_ns() - HOUR_NS // 2
    os.utime(files[0], ns=(t, t))
    with winnowdb.open(db) as idx:
        s = idx.add([tmp_path / "c"])
    assert (s.added, s.updated, s.unchanged) == (0, 1, 3)
    assert _rows(db, f"SELECT mtime_ns FROM documents WHERE path = '{files[0].resolve()}'") == [(t,)]


def test_a_time_that_had_not_settled_is_not_trusted(tmp_path):
    files = _corpus(tmp_path / "c", n=2, age_ns=0)  # written just now
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "c"])
    assert _rows(db, "SELECT COUNT(*), COUNT(mtime_ns) FROM documents") == [(2, 0)]
    _same_size_edit(files[0])  # the same size and time: only reading it tells
    with winnowdb.open(db) as idx:
        s = idx.add([tmp_path / "c"])
    assert (s.added, s.updated, s.unchanged) == (0, 1, 1)


def test_recorded_mtime_rule(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("x")
    now = time.time_ns()
    for age, recorded in ((SETTLED_NS + 10**9, True), (SETTLED_NS - 10**9, False), (-HOUR_NS, False)):
        t = now - age
        os.utime(f, ns=(t, t))
        (listed, _), = walk([tmp_path])
        assert recorded_mtime(listed) == (t if recorded else 0)


def test_an_index_without_times_reads_once_then_records_them(tmp_path):
    _corpus(tmp_path / "c")
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "c"])
    con = duckdb.connect(str(db))
    con.execute("UPDATE documents SET mtime_ns = NULL")  # as an index of schema 5 is upgraded
    con.close()
    with winnowdb.open(db) as idx:
        s = idx.add([tmp_path / "c"])
    assert (s.added, s.updated, s.unchanged) == (0, 0, 4)
    assert _rows(db, "SELECT COUNT(mtime_ns) FROM documents") == [(4,)]


def test_a_moved_placement_is_read_whatever_the_time(tmp_path):
    _corpus(tmp_path / "c")
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "c"])
        s = idx.add([tmp_path / "c"], label="2027")  # a new label: the documents are written again
    assert (s.added, s.updated, s.unchanged) == (0, 4, 0)


def test_export_leaves_the_times_out_and_import_has_none(tmp_path):
    _corpus(tmp_path / "c")
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "c"])
    from typer.testing import CliRunner

    from winnowdb.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["export", "--parquet", str(tmp_path / "x"), "--db", str(db)])
    assert r.exit_code == 0, r.output
    cols = [c[0] for c in duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{tmp_path / 'x' / 'documents'}/*.parquet')")
            .fetchall()]
    assert "mtime_ns" not in cols and "hashes" in cols
    r = runner.invoke(app, ["import", "--parquet", str(tmp_path / "x"), "--db", str(tmp_path / "j.duckdb")])
    assert r.exit_code == 0, r.output
    assert _rows(tmp_path / "j.duckdb", "SELECT COUNT(*), COUNT(mtime_ns) FROM documents") == [(4, 0)]
    with winnowdb.open(tmp_path / "j.duckdb") as idx:  # read once, then the times are recorded
        s = idx.add([tmp_path / "c"])
    assert s.unchanged == 4
    assert _rows(tmp_path / "j.duckdb", "SELECT COUNT(mtime_ns) FROM documents") == [(4,)]


@pytest.mark.parametrize("listed_too", [False, True])
def test_missing_under_trusts_the_listing(tmp_path, listed_too):
    files = _corpus(tmp_path / "c")
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "c"])
        files[1].unlink()
        listed = [str(f.resolve()) for f in files if f.exists()] + ([str(files[1].resolve())] if listed_too else [])
        gone = idx.missing_under([tmp_path / "c"], listed)
    assert gone == ([] if listed_too else [str(files[1].resolve())])
