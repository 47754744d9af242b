"""A process that ends at once after its command (the CLI, ``store/lifetime.py``) detaches an
index when it closes it and leaves DuckDB's in-memory host for the exit to free; any other
process closes as always. What it must never cost: another process kept from the file after it
was closed, a write not in the file when the process ends, a later open of the same file in the
same process, or a folder of DuckDB's temporaries left behind.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import winnowdb

#: a child that opens the index (read-only or for writing), reads, closes it, says so, then
#: waits for a line on stdin before it ends with os._exit, as the CLI does (the parent tries the
#: file meanwhile)
_CHILD = """
import os, sys
from winnowdb.store import dbfile, lifetime
path, mode, how = sys.argv[1:4]
if mode == "at-once":
    lifetime.end_at_once()
con = dbfile.connect_index(path, read_only=how == "read")
con.execute("SELECT COUNT(*) FROM fingerprints").fetchall()
if how == "write":
    con.execute("UPDATE meta SET value = value WHERE false")
dbfile.disconnect_index(con)
print("closed", flush=True)
sys.stdin.readline()
os._exit(0)
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("lifetime")
    corpus = base / "corpus"
    corpus.mkdir()
    for i in range(6):
        (corpus / f"d{i}.txt").write_text(f"document {i} " + "the same passage of words, said again " * 20)
    db = base / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([corpus])
    return db


def _writable_while_child_waits(db: Path, mode: str, how: str) -> bool:
    """Whether this process can open ``db`` for writing while a child that used it (``_CHILD``,
    in ``mode``, opened to ``how``) has closed it and not yet ended."""
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(db), mode, how], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "closed"
        try:
            duckdb.connect(str(db)).close()
            return True
        except duckdb.Error:
            return False
    finally:
        child.communicate("go\n", timeout=60)
        assert child.returncode == 0


@pytest.mark.parametrize("how", ["read", "write"])
@pytest.mark.parametrize("mode", ["plain", "at-once"])
def test_a_closed_index_is_released_at_once_either_way(index, mode, how):
    assert _writable_while_child_waits(index, mode, how)  # DuckDB's lock is released at the close
    assert not Path(str(index) + ".wal").exists()
    assert not Path(str(index) + ".tmp").exists()


def _run(script: str, env: dict | None = None) -> str:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_write_is_in_the_file_when_the_process_ends_at_once(index, tmp_path):
    db = tmp_path / "written.duckdb"
    db.write_bytes(index.read_bytes())
    extra = tmp_path / "extra.txt"
    extra.write_text("a new document that shares nothing with the others at all, " * 10)
    with winnowdb.open(db, read_only=True, create=False) as idx:
        before = idx.stats()["documents"]
    _run(f"""
import os
import winnowdb
from winnowdb.store import lifetime
lifetime.end_at_once()
with winnowdb.open({str(db)!r}) as idx:
    idx.add([{str(extra)!r}])
os._exit(0)  # as the CLI ends: no interpreter shutdown, nothing of DuckDB's torn down
""")
    assert not Path(str(db) + ".wal").exists()  # the detach checkpointed it
    with winnowdb.open(db, read_only=True, create=False) as idx:
        assert idx.stats()["documents"] == before + 1


def test_an_index_that_spilled_leaves_no_temporary_folder(index, tmp_path):
    db = tmp_path / "spilled.duckdb"
    db.write_bytes(index.read_bytes())
    out = _run(f"""
import os
from winnowdb.store import dbfile, lifetime
lifetime.end_at_once()
con = dbfile.connect_index({str(db)!r}, read_only=True)
folder = con.execute("SELECT current_setting('temp_directory')").fetchall()[0][0]
con.execute("SELECT COUNT(*) FROM (SELECT range AS a, hash(range) AS b FROM range(3000000) ORDER BY b)").fetchall()
print(os.path.isdir(folder))
dbfile.disconnect_index(con)
os._exit(0)
""", env={"WINNOWDB_MEMORY_LIMIT": "30MB"})  # the sort spills
    assert out.split() == ["True"]  # DuckDB spilled into the index's temporary folder
    assert not Path(str(db) + ".tmp").exists()  # and removed it when the host was closed


def test_a_closed_index_opens_again_in_the_same_process(index, tmp_path):
    db = tmp_path / "again.duckdb"
    db.write_bytes(index.read_bytes())
    extra = tmp_path / "extra.txt"
    extra.write_text("a new document that shares nothing with the others at all, " * 10)
    out = _run(f"""
import os
import winnowdb
from winnowdb.store import lifetime
lifetime.end_at_once()
db = {str(db)!r}
with winnowdb.open(db, read_only=True, create=False) as idx:
    before = idx.stats()["documents"]
with winnowdb.open(db, read_only=True, create=False) as idx:
    assert idx.stats()["documents"] == before
with winnowdb.open(db) as idx:  # for writing, after it was read
    idx.add([{str(extra)!r}])
with winnowdb.open(db, read_only=True, create=False) as idx:
    print(before, idx.stats()["documents"], flush=True)
os._exit(0)
""")
    before, after = map(int, out.split())
    assert after == before + 1
    with winnowdb.open(db, read_only=True, create=False) as idx:  # the file is whole
        assert idx.stats()["documents"] == after
