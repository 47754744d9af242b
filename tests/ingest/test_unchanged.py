"""A re-add takes files whose size and recorded times are unchanged for unchanged without reading
them (ingest/unchanged.py); times recorded only once settled and when the read saw the walk's;
a restored modification time is seen; the first re-add of an index without times records them;
exports leave them out. Real files, a real DuckDB index; reads are counted by wrapping the real
reader (the adds here are small, so they read in this process)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import duckdb
import pytest

import winnowdb
from winnowdb.ingest import prepare as prepare_mod
from winnowdb.ingest.unchanged import SETTLED_NS, recorded_times, same_file
from winnowdb.ingest.walk import Listed, walk

TEXT = "The tide came in over the flats and the herons rose from the reeds at dusk. " * 12
HOUR_NS = 3600 * 10**9


def _corpus(root: Path, n: int = 4, age_ns: int = HOUR_NS) -> list[Path]:
    """``n`` files whose modification time is ``age_ns`` in the past (negative: in the future)."""
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


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The paths the add's reader opens (the real reader, wrapped)."""
    seen: list[str] = []
    real = prepare_mod.read_source

    def counting(path, **kwargs):
        seen.append(os.path.basename(str(path)))
        return real(path, **kwargs)

    monkeypatch.setattr(prepare_mod, "read_source", counting)
    return seen


def _add(db: Path, *paths, **kw):
    with winnowdb.open(db) as idx:
        return idx.add(list(paths), jobs=1, **kw)


def test_unchanged_files_are_not_read_and_changed_ones_are(tmp_path, reads):
    files = _corpus(tmp_path / "c")
    db = tmp_path / "i.duckdb"
    assert _add(db, tmp_path / "c").added == 4
    assert sorted(reads) == ["doc0.txt", "doc1.txt", "doc2.txt", "doc3.txt"]
    stored = {p: (m, c) for p, m, c in _rows(db, "SELECT path, mtime_ns, ctime_ns FROM documents")}
    assert stored == {str(f.resolve()): (f.stat().st_mtime_ns, f.stat().st_ctime_ns) for f in files}

    reads.clear()
    s = _add(db, tmp_path / "c")
    assert (s.added, s.updated, s.unchanged) == (0, 0, 4) and reads == []

    # new content of the same size, its old modification time put back (touch -d, cp -p, unzip):
    # the status change time moved, so it is read, and found changed
    st = files[0].stat()
    files[0].write_text(files[0].read_text().replace("herons", "egrets", 1))
    os.utime(files[0], ns=(st.st_atime_ns, st.st_mtime_ns))
    assert files[0].stat().st_size == st.st_size and files[0].stat().st_mtime_ns == st.st_mtime_ns
    reads.clear()
    s = _add(db, tmp_path / "c")
    assert (s.added, s.updated, s.unchanged) == (0, 1, 3) and reads == ["doc0.txt"]

    # only a time moved: read once, found unchanged by content, its times recorded, then not read
    t = time.time_ns() - HOUR_NS // 2
    os.utime(files[1], ns=(t, t))
    reads.clear()
    s = _add(db, tmp_path / "c")
    assert (s.added, s.updated, s.unchanged) == (0, 0, 4) and reads == ["doc1.txt"]
    assert _rows(db, f"SELECT mtime_ns FROM documents WHERE path = '{files[1].resolve()}'") == [(t,)]
    reads.clear()
    assert _add(db, tmp_path / "c").unchanged == 4 and reads == []


def test_a_time_that_had_not_settled_is_not_trusted(tmp_path, reads):
    _corpus(tmp_path / "c", n=2, age_ns=-HOUR_NS)  # a time later than the walk: not settled
    db = tmp_path / "i.duckdb"
    _add(db, tmp_path / "c")
    assert _rows(db, "SELECT COUNT(*), COUNT(mtime_ns), COUNT(ctime_ns) FROM documents") == [(2, 0, 0)]
    reads.clear()
    s = _add(db, tmp_path / "c")  # read again each time, as before times were kept
    assert s.unchanged == 2 and sorted(reads) == ["doc0.txt", "doc1.txt"]


def test_recorded_times_rule(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("x")
    t = time.time_ns() - HOUR_NS
    os.utime(f, ns=(t, t))
    (listed, _), = walk([tmp_path])
    st = f.stat()
    assert (listed.size, listed.mtime_ns, listed.ctime_ns) == (st.st_size, t, st.st_ctime_ns)
    stamp = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)  # what the read saw
    assert recorded_times(listed, stamp) == (t, st.st_ctime_ns)
    # the read saw another size or other times (replaced after the walk): nothing recorded
    assert recorded_times(listed, (st.st_size + 1, t, st.st_ctime_ns)) == (0, 0)
    assert recorded_times(listed, (st.st_size, t - 1, st.st_ctime_ns)) == (0, 0)
    assert recorded_times(listed, (st.st_size, t, st.st_ctime_ns + 1)) == (0, 0)
    # settled: SETTLED_NS before the walk looked, not a nanosecond less
    edge = listed._replace(seen_ns=t + SETTLED_NS)
    assert recorded_times(edge, stamp) == (t, st.st_ctime_ns)
    assert recorded_times(edge._replace(seen_ns=t + SETTLED_NS - 1), stamp) == (0, 0)
    # and the comparison: every one of size and both times must match a recorded (not NULL) value
    assert same_file(listed, st.st_size, t, st.st_ctime_ns)
    assert not same_file(listed, st.st_size, None, st.st_ctime_ns)
    assert not same_file(listed, st.st_size, t, None)
    assert not same_file(listed, st.st_size + 1, t, st.st_ctime_ns)
    assert not same_file(Listed(listed.path, st.st_size, t, st.st_ctime_ns + 1, 0), st.st_size, t, st.st_ctime_ns)


def test_an_index_without_times_reads_once_then_records_them(tmp_path, reads):
    _corpus(tmp_path / "c")
    db = tmp_path / "i.duckdb"
    _add(db, tmp_path / "c")
    con = duckdb.connect(str(db))
    con.execute("UPDATE documents SET mtime_ns = NULL, ctime_ns = NULL")  # as an upgraded schema-5 index
    con.close()
    reads.clear()
    s = _add(db, tmp_path / "c")
    assert (s.added, s.updated, s.unchanged) == (0, 0, 4) and len(reads) == 4
    assert _rows(db, "SELECT COUNT(mtime_ns), COUNT(ctime_ns) FROM documents") == [(4, 4)]
    reads.clear()
    assert _add(db, tmp_path / "c").unchanged == 4 and reads == []


def test_a_moved_placement_is_read_whatever_the_times(tmp_path, reads):
    _corpus(tmp_path / "c")
    db = tmp_path / "i.duckdb"
    _add(db, tmp_path / "c")
    reads.clear()
    s = _add(db, tmp_path / "c", label="2027")  # a new label: the documents are written again
    assert (s.added, s.updated, s.unchanged) == (0, 4, 0) and len(reads) == 4


def test_export_leaves_the_times_out_and_import_has_none(tmp_path):
    _corpus(tmp_path / "c")
    db = tmp_path / "i.duckdb"
    _add(db, tmp_path / "c")
    from typer.testing import CliRunner

    from winnowdb.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["export", "--parquet", str(tmp_path / "x"), "--db", str(db)])
    assert r.exit_code == 0, r.output
    cols = [c[0] for c in duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{tmp_path / 'x' / 'documents'}/*.parquet')")
            .fetchall()]
    assert "mtime_ns" not in cols and "ctime_ns" not in cols and "hashes" in cols
    r = runner.invoke(app, ["import", "--parquet", str(tmp_path / "x"), "--db", str(tmp_path / "j.duckdb")])
    assert r.exit_code == 0, r.output
    counts = "SELECT COUNT(*), COUNT(mtime_ns), COUNT(ctime_ns) FROM documents"
    assert _rows(tmp_path / "j.duckdb", counts) == [(4, 0, 0)]
    s = _add(tmp_path / "j.duckdb", tmp_path / "c")  # read once, then the times are recorded
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
