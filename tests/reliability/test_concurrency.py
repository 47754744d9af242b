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
import time

import duckdb
import pytest

from .reliability_helpers import CHILD, one_line_error, run

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
    """A real, slow ``add`` of the crash corpus (1,000 new files, 25 batches, a pause of 0.6 s
    after each) into an index of 200 files, running; yields once its first batch has committed
    (so it certainly holds the index). Shared by the tests below, in file order; the last one
    waits for it to finish."""
    folder = tmp_path_factory.mktemp("busy")
    db = _index_of_part000(crash_corpus, folder)
    log = folder / "log"
    env = dict(os.environ, WINNOWDB_TEST_BATCH_BYTES="300000", WINNOWDB_TEST_COMMIT_LOG=str(log),
               WINNOWDB_TEST_PAUSE_AFTER_BATCH="0.6")
    p = subprocess.Popen([*CHILD, "add", str(crash_corpus / "docs"), "--db", str(db)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not (log.exists() and log.stat().st_size) and time.time() < deadline:
        assert p.poll() is None, p.communicate()
        time.sleep(0.05)
    yield db, p
    if p.poll() is None:
        p.terminate()
    p.communicate(timeout=60)


def still_running(p):
    assert p.poll() is None, "the add finished too early for this test to mean anything"


def test_second_writer_is_refused_at_once(add_in_progress, crash_corpus):
    db, writer = add_in_progress
    t0 = time.perf_counter()
    r = run(["add", crash_corpus / "big", "--db", db], timeout=60)
    seconds = time.perf_counter() - t0
    still_running(writer)
    assert r.returncode == 2
    msg = one_line_error(r.stderr)
    assert f"index {db} is in use by another process" in msg, msg
    assert f"process {writer.pid} has it open" in msg, msg
    assert "try again when it has finished" in msg
    assert seconds < 30  # no waiting on the lock
    r = run(["remove", crash_corpus / "docs" / "part000", "--db", db], timeout=60)
    assert r.returncode == 2 and "is in use by another process" in one_line_error(r.stderr)


@pytest.mark.parametrize("args", READ_COMMANDS, ids=lambda a: a[0])
def test_readers_are_told_the_index_is_being_written(add_in_progress, args):
    db, writer = add_in_progress
    r = run([*args, "--db", db], timeout=60)
    still_running(writer)
    assert r.returncode == 2, r.stdout + r.stderr
    msg = one_line_error(r.stderr)
    assert "is in use by another process" in msg and f"process {writer.pid} is writing to it" in msg, msg
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
    out, err = writer.communicate(timeout=300)
    assert writer.returncode == 0, err
    r = run(["check", "--db", db])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "(1200 documents," in r.stdout
    for args in READ_COMMANDS:
        assert run([*args, "--db", db]).returncode == 0, args


def test_readers_share_and_exclude_writers(small_index, crash_corpus):
    # a read-only holder (like a long `winnowdb sql` or report) elsewhere
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time\n"
                         "c = duckdb.connect(sys.argv[1], read_only=True)\n"
                         "print('open', flush=True)\ntime.sleep(60)", str(small_index)],
        stdout=subprocess.PIPE, text=True)
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
        holder.kill()
        holder.communicate()
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
