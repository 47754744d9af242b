"""An index is opened within a share of the machine's memory (store/dbfile.py: DuckDB's own
default is 80%, and a big `pairs` used what it could), or what WINNOWDB_MEMORY_LIMIT says; an add's
bulk writes give the same limit back; DuckDB spills to a folder it can write, no more than a few
times the index's size (DuckDB's own cap is 90% of the free disk), or what WINNOWDB_TEMP_LIMIT says."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb

import winnowdb
from winnowdb.store.limits import (
    INDEX_BYTES_PER_TEXT_BYTE,
    MEMORY_ENV,
    MEMORY_SHARE,
    MIN_MEMORY_BYTES,
    MIN_TEMP_BYTES,
    TEMP_ENV,
    TEMP_FACTOR,
    memory_bytes,
    temp_directory,
    temp_limit_bytes,
)

SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus" / "essays"


def _setting(idx, name: str) -> str:
    return str(idx.store.connection.execute("SELECT current_setting(?)", [name]).fetchall()[0][0])


def _duckdb_default() -> int:
    con = duckdb.connect()
    try:
        return memory_bytes(str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]))
    finally:
        con.close()


def test_an_index_is_opened_with_a_quarter_of_the_memory_and_keeps_it_after_an_add(tmp_path, monkeypatch):
    monkeypatch.delenv(MEMORY_ENV, raising=False)
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    want = min(max(MIN_MEMORY_BYTES, int(total * MEMORY_SHARE)), _duckdb_default())
    with winnowdb.open(tmp_path / "i.duckdb") as idx:
        got = memory_bytes(_setting(idx, "memory_limit"))
        assert abs(got - want) <= 0.1 * 2**30, (got, want)  # DuckDB reads it back rounded to 0.1 GiB
        idx.add([SAMPLE])  # bulk writes lower the limit for the add and give it back
        assert memory_bytes(_setting(idx, "memory_limit")) == got
        assert _setting(idx, "temp_directory") == str(tmp_path / "i.duckdb") + ".tmp"


def test_winnowdb_memory_limit_sets_it_and_a_bad_one_is_a_one_line_error(tmp_path, monkeypatch):
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([SAMPLE])
    monkeypatch.setenv(MEMORY_ENV, "300MB")
    with winnowdb.open(db, read_only=True) as idx:
        assert abs(memory_bytes(_setting(idx, "memory_limit")) - 300 * 10**6) < 10**6  # '286.1 MiB'
        assert idx.pairs(top=3)  # the queries run within it
    env = dict(os.environ, **{MEMORY_ENV: "lots"})
    r = subprocess.run([sys.executable, "-m", "winnowdb", "stats", "--db", str(db)], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip() == f"error: {MEMORY_ENV}='lots' is not a memory size DuckDB takes (e.g. 8GB, 500MB)"


def test_spills_go_beside_the_index_or_where_they_can_be_written(tmp_path, monkeypatch):
    path = str(tmp_path / "i.duckdb")
    assert temp_directory(path) == path + ".tmp"
    # an index on a disk this user cannot write (root can write anywhere: the check is asked)
    monkeypatch.setattr(os, "access", lambda p, mode: os.path.abspath(p) != str(tmp_path))
    elsewhere = temp_directory(path)
    assert Path(elsewhere).parent == Path(tempfile.gettempdir()) and Path(elsewhere).name.startswith("winnowdb-")
    assert temp_directory(path) == elsewhere != temp_directory(str(tmp_path / "other.duckdb"))


def test_the_spill_is_capped_by_the_index_size_or_winnowdb_temp_limit(tmp_path, monkeypatch):
    monkeypatch.delenv(TEMP_ENV, raising=False)
    db = tmp_path / "i.duckdb"
    assert temp_limit_bytes(str(db)) == MIN_TEMP_BYTES  # no file yet
    assert temp_limit_bytes(str(db), 10 * 2**30) == TEMP_FACTOR * INDEX_BYTES_PER_TEXT_BYTE * 10 * 2**30
    with winnowdb.open(db) as idx:
        idx.add([SAMPLE])
    with open(db, "ab") as f:  # a big index, as far as its size says (DuckDB ignores bytes past its blocks)
        f.truncate(os.path.getsize(db) + 3 * 2**30)
    big = os.path.getsize(db)
    assert temp_limit_bytes(str(db)) == TEMP_FACTOR * big
    with winnowdb.open(db, read_only=True) as idx:
        got = memory_bytes(_setting(idx, "max_temp_directory_size"))
        if TEMP_FACTOR * big < 0.9 * shutil.disk_usage(tmp_path).free:
            assert abs(got - TEMP_FACTOR * big) <= 0.1 * 2**30, (got, big)  # read back rounded to 0.1 GiB
        else:  # DuckDB's own cap (90% of the free disk) is lower: kept ('90% of available disk space')
            assert got is None, _setting(idx, "max_temp_directory_size")
        assert idx.pairs(top=3)
    monkeypatch.setenv(TEMP_ENV, "300MB")
    with winnowdb.open(db, read_only=True) as idx:
        assert abs(memory_bytes(_setting(idx, "max_temp_directory_size")) - 300 * 10**6) < 10**6
    env = dict(os.environ, **{TEMP_ENV: "lots"})
    r = subprocess.run([sys.executable, "-m", "winnowdb", "stats", "--db", str(db)], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip() == f"error: {TEMP_ENV}='lots' is not a size DuckDB takes (e.g. 50GB, 500MB)"
