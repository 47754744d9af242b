"""Concurrency: what a second process gets while an index is in use.

DuckDB locks the index file: a process that opens it for writing excludes every other process
(readers too); processes that open it read-only exclude writers but not each other. winnowdb
never waits on the lock: a command that cannot get it fails at once with one line saying the
index is in use by another process (exit 2), never a traceback or a hang. Verified here against
a real ``add`` in progress.
"""
from __future__ import annotations

import os
import subprocess
import sys

import duckdb
import pytest

from .reliability_helpers import HeldChild, one_line_error, run

READ_COMMANDS = [
    ["stats"],
    ["pairs"],
    ["sql", "SELECT COUNT(*) FROM documents"],
    ["check"],
]


def _index_of_part000(crash_corpus, folder):
    db = folder / "idx.duckdb"
    r = run(["add", crash_corpus / "docs" / "part000", "--db", db])
    assert r.returncode == 0, r.stderr
    return db


@pytest.fixture()
def small_index(crash_corpus, tmp_path):
    return _index_of_part000(crash_corpus, tmp_path)


@pytest.fixture(scope="module")
def add_in_progress(crash_corpus, tmp_path_factory):
    """A real ``add`` of the crash corpus (1,000 new files in about 25 batches) into an index of
    200 files, held right after its first commit: it holds the index for writing until
    ``test_the_writer_is_unharmed_and_everything_works_after`` releases it. Shared by the tests
    below, in file order."""
    folder = tmp_path_factory.mktemp("busy")
    db = _index_of_part000(crash_corpus, folder)
    env = dict(os.environ, WINNOWDB_TEST_BATCH_BYTES="300000", WINNOWDB_TEST_COMMIT_LOG=str(folder / "log"))
    child = HeldChild(["add", crash_corpus / "docs", "--db", db], env=env, hold_dir=folder / "hold",
                      holds=["after:1"])
    child.wait_held("after:1")
    yield db, child
    if child.proc.poll() is None:  # a test failed before releasing it, or ran alone
        child.proc.kill()
    child.finish(timeout=120)


def still_running(child):
    assert child.proc.poll() is None, "the held add has ended: these tests would mean nothing"


# Each command below runs with a 60-second timeout. The add holding the index is held until the
# last test releases it, however long that takes, so a command that waited for the lock instead
# of failing at once would time out and fail the test.


def test_second_writer_is_refused_at_once(add_in_progress, crash_corpus):
    db, writer = add_in_progress
    r = run(["add", crash_corpus / "big", "--db", db], timeout=60)
    still_running(writer)
    assert r.returncode == 2
    msg = one_line_error(r.stderr)
    assert f"index {db} is in use by another process" in msg, msg
    assert f"process {writer.proc.pid} has it open" in msg, msg
    assert "try again when it has finished" in msg
    r = run(["remove", crash_corpus / "docs" / "part000", "--db", db], timeout=60)
    assert r.returncode == 2 and "is in use by another process" in one_line_error(r.stderr)


@pytest.mark.parametrize("args", READ_COMMANDS, ids=lambda a: a[0])
def test_readers_are_told_the_index_is_being_written(add_in_progress, args):
    db, writer = add_in_progress
    r = run([*args, "--db", db], timeout=60)
    still_running(writer)
    assert r.returncode == 2, r.stdout + r.stderr
    msg = one_line_error(r.stderr)
    assert "is in use by another process" in msg and f"process {writer.proc.pid} is writing to it" in msg, msg
    assert "DuckDB lets no other process read an index while it is being written" in msg


def test_query_and_compare_are_refused_too(add_in_progress, crash_corpus):
    db, writer = add_in_progress
    some = sorted((crash_corpus / "docs" / "part000").iterdir())
    for args in (["query", some[0]], ["compare", some[0], some[1]]):
        r = run([*args, "--db", db], timeout=60)
        assert r.returncode == 2 and "is in use by another process" in one_line_error(r.stderr)
    still_running(writer)


def test_the_writer_is_unharmed_and_everything_works_after(add_in_progress, crash_corpus):
    db, writer = add_in_progress
    for _ in range(3):  # others knocking on the lock do not disturb the add
        assert run(["stats", "--db", db], timeout=60).returncode == 2
    still_running(writer)
    writer.release("after:1")
    status, out, err = writer.finish(timeout=300)
    assert status == 0, err
    assert out.startswith("1000 added, 0 updated, 200 unchanged"), out
    assert len(writer.marker("exit")["kinds"]) > 5  # it was held with most of its batches to come
    r = run(["check", "--db", db])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "(1200 documents," in r.stdout
    for args in READ_COMMANDS:
        assert run([*args, "--db", db]).returncode == 0, args


def test_readers_share_and_exclude_writers(small_index, crash_corpus):
    # a read-only holder (like a long `winnowdb sql` or report) elsewhere; it holds the index
    # until its standard input is closed: no time limit for the test to outlast
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys\n"
                         "c = duckdb.connect(sys.argv[1], read_only=True)\n"
                         "print('open', flush=True)\nsys.stdin.read()", str(small_index)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        for args in READ_COMMANDS:  # other readers: fine
            r = run([*args, "--db", small_index])
            assert r.returncode == 0, r.stderr
        r = run(["add", crash_corpus / "big", "--db", small_index])  # a writer: refused
        assert r.returncode == 2
        msg = one_line_error(r.stderr)
        assert "is in use by another process" in msg and f"process {holder.pid} has it open" in msg, msg
        r = run(["sql", "DELETE FROM documents", "--write", "--db", small_index])
        assert r.returncode == 2 and "is in use by another process" in one_line_error(r.stderr)
    finally:
        holder.communicate(timeout=60)  # closes its standard input: it ends, and its lock goes
    assert holder.returncode == 0
    # the holder is gone: its lock went with it
    assert run(["add", crash_corpus / "big", "--db", small_index]).returncode == 0


def test_in_process_connection_is_not_a_different_process(small_index):
    # the same process may hold the index read-only and open it again through winnowdb
    import winnowdb

    con = duckdb.connect(str(small_index), read_only=True)
    try:
        with winnowdb.open(small_index, read_only=True, create=False) as idx:
            assert idx.stats()["documents"] == 200
    finally:
        con.close()
