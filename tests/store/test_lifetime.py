"""A process that ends at once after its command (the CLI, ``store/lifetime.py``) leaves an index
it read attached when it closes it, for the exit to release; any other process closes as always.
What it must never cost: a later open of the same file in the same process (either way), a
folder of DuckDB's temporaries left behind, or a real CLI command's output.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import winnowdb

#: a child that opens the index read-only, reads, closes it, says so, then waits for a line on
#: stdin before it ends (the parent tries the file meanwhile)
_CHILD = """
import sys
from winnowdb.store import dbfile, lifetime
if sys.argv[2] == "at-once":
    lifetime.end_at_once()
con = dbfile.connect_index(sys.argv[1], read_only=True)
con.execute("SELECT COUNT(*) FROM fingerprints").fetchall()
dbfile.disconnect_index(con)
print("closed", flush=True)
sys.stdin.readline()
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


def _writable_while_child_waits(db: Path, mode: str) -> bool:
    """Whether this process can open ``db`` for writing while a child that read it (``_CHILD``,
    in ``mode``) has closed it and not yet ended."""
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(db), mode], stdin=subprocess.PIPE,
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


def test_only_a_process_that_ends_at_once_leaves_a_read_index_attached(index):
    assert _writable_while_child_waits(index, "plain")  # closed: DuckDB's lock released
    assert not _writable_while_child_waits(index, "at-once")  # left attached until its exit
    assert not Path(str(index) + ".tmp").exists()


def test_an_index_with_a_temporary_folder_is_closed_as_before(index):
    tmp = Path(str(index) + ".tmp")  # DuckDB spilled there (or another process did)
    tmp.mkdir()
    try:
        assert _writable_while_child_waits(index, "at-once")
    finally:
        tmp.rmdir()


def test_a_file_left_attached_opens_again_either_way(index, tmp_path):
    db = tmp_path / "again.duckdb"
    db.write_bytes(index.read_bytes())
    extra = tmp_path / "extra.txt"
    extra.write_text("a new document that shares nothing with the others at all, " * 10)
    script = f"""
import sys
import winnowdb
from winnowdb.store import lifetime
lifetime.end_at_once()
db = {str(db)!r}
with winnowdb.open(db, read_only=True, create=False) as idx:
    before = idx.stats()["documents"]
with winnowdb.open(db, read_only=True, create=False) as idx:  # the attached file, again
    assert idx.stats()["documents"] == before
with winnowdb.open(db) as idx:  # for writing: the file left attached read-only is closed first
    idx.add([{str(extra)!r}])
with winnowdb.open(db, read_only=True, create=False) as idx:
    print(before, idx.stats()["documents"])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    before, after = map(int, done.stdout.split())
    assert after == before + 1
    with winnowdb.open(db, read_only=True, create=False) as idx:  # the file is whole
        assert idx.stats()["documents"] == after
