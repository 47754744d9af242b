"""Crash safety: ``add`` killed with SIGKILL at random moments loses nothing that committed, and
running the same ``add`` again gives exactly the index an uninterrupted run gives. Ctrl-C stops
cleanly with one line saying what was saved.

The killed process is the real CLI (``crash_child.py``) with small batches (so a corpus that
takes a second or two to add has about fifteen commit points, plus a WAL checkpoint or two) and a
lowered huge-document threshold (so three larger files take the streamed, segmented path).
The seed is printed on failure; set WINNOWDB_CRASH_SEED to replay or vary it.
"""
from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from winnowdb.store.check import check_index

from .reliability_helpers import CHILD, WINNOWDB, content_differences, indexed_paths, run

KILLS = 20


def child_env(log: Path) -> dict:
    return dict(os.environ, WINNOWDB_TEST_BATCH_BYTES="500000", WINNOWDB_TEST_HUGE_CHARS="300000",
                WINNOWDB_TEST_COMMIT_LOG=str(log))


def logged(log: Path) -> set[str]:
    return set(log.read_text(encoding="utf-8").split("\n")) - {""} if log.exists() else set()


def assert_healthy_subset(db: Path, ref: Path, log: Path, context: str) -> set[str]:
    """The killed index opens, passes `check`, holds every logged (committed) document, and
    every document it holds is exactly the reference's."""
    report = check_index(db)  # what `winnowdb check` runs (in-process here: kills are many)
    assert report.ok, f"{context}: check failed: {report.to_dict()}"
    have = indexed_paths(db)
    missing = logged(log) - have
    assert not missing, f"{context}: {len(missing)} committed documents lost, e.g. {sorted(missing)[:3]}"
    diff = content_differences(db, ref, only_paths_in_a=True)
    assert diff == {"documents": 0, "fingerprints": 0, "texts": 0}, f"{context}: {diff}"
    return have


@pytest.fixture(scope="module")
def reference(crash_corpus, tmp_path_factory):
    """An uninterrupted run of the same child on a fresh index, and how long it took."""
    d = tmp_path_factory.mktemp("reference")
    db = d / "ref.duckdb"
    t0 = time.perf_counter()
    r = run(["add", crash_corpus, "--db", db], cmd=CHILD, env=child_env(d / "log"))
    seconds = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr
    assert "1203 added" in r.stdout
    assert len(logged(d / "log")) == 1203
    return db, seconds


def test_sigkill_at_random_moments_loses_nothing_committed(crash_corpus, reference, tmp_path):
    # Runs of the same add on one index, each killed after a random delay, until one finishes
    # uninterrupted; then the index must equal the reference, and a new chain starts from no
    # index at all. Repeated until KILLS runs were killed.
    ref, ref_seconds = reference
    seed = int(os.environ.get("WINNOWDB_CRASH_SEED", "20240604"))
    rng = random.Random(seed)
    db, log = tmp_path / "crashed.duckdb", tmp_path / "commits.log"
    kills = runs = chains = 0
    fresh = True
    while kills < KILLS:
        runs += 1
        assert runs <= 3 * KILLS, f"seed {seed}: only {kills} of {runs} runs were killed"
        if fresh:
            for p in tmp_path.iterdir():
                p.unlink()
            fresh = False
        delay = rng.uniform(0.0, ref_seconds)
        context = f"seed {seed}, run {runs}, killed after {delay:.2f}s"
        p = subprocess.Popen([*CHILD, "add", str(crash_corpus), "--db", str(db)], env=child_env(log),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        out, err = p.communicate(timeout=120)
        assert "Traceback" not in err, f"{context}: {err}"
        if p.returncode == -signal.SIGKILL:
            kills += 1
            if not db.exists():  # killed before the index was created: nothing may have committed
                assert not logged(log), context
                continue
            assert_healthy_subset(db, ref, log, context)
            continue
        # the run finished before the kill: the chain is complete
        assert p.returncode == 0, f"{context}: {err}"
        chains += 1
        assert content_differences(db, ref) == {"documents": 0, "fingerprints": 0, "texts": 0}, context
        assert indexed_paths(db) == indexed_paths(ref), context
        r = run(["check", "--db", db])
        assert r.returncode == 0 and r.stdout.startswith("ok: "), r.stdout + r.stderr
        leftovers = [p.name for p in db.parent.iterdir() if ".creating-" in p.name]
        assert not leftovers, f"{context}: temporary files left: {leftovers}"
        fresh = True
    # finish the last chain: the same add completes it to exactly the reference index
    if db.exists():
        r = run(["add", crash_corpus, "--db", db], cmd=CHILD, env=child_env(log))
        assert r.returncode == 0, r.stderr
        assert content_differences(db, ref) == {"documents": 0, "fingerprints": 0, "texts": 0}
        assert check_index(db).ok
    print(f"seed {seed}: {kills} kills in {runs} runs, {chains} chains completed")


def test_sigkill_while_creating_the_index(crash_corpus, tmp_path):
    # the first fraction of a second: the index file is being created. A kill there must never
    # leave a file that the next add refuses ("not a DuckDB file") -- creation is atomic.
    rng = random.Random(11)
    one = crash_corpus / "docs" / "part000"
    for i in range(6):
        db = tmp_path / f"new{i}.duckdb"
        p = subprocess.Popen([*WINNOWDB, "add", str(one), "--db", str(db)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.2, 1.2))
        p.kill()
        p.communicate(timeout=60)
        r = run(["add", one, "--db", db])
        assert r.returncode == 0, f"kill {i}: {r.stderr}"
        assert "error" not in r.stderr
        assert check_index(db).ok


def test_ctrl_c_stops_cleanly_and_says_what_was_saved(crash_corpus, reference, tmp_path):
    ref, ref_seconds = reference
    db, log = tmp_path / "interrupted.duckdb", tmp_path / "log"
    p = subprocess.Popen([*CHILD, "add", str(crash_corpus), "--db", str(db)], env=child_env(log),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(ref_seconds * 0.6)
    p.send_signal(signal.SIGINT)
    t0 = time.perf_counter()
    out, err = p.communicate(timeout=60)
    stop_seconds = time.perf_counter() - t0
    if p.returncode == 0:
        pytest.skip("the add finished before Ctrl-C arrived (a very fast machine)")
    assert p.returncode == 130, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    msg = lines[0]
    assert msg.startswith("interrupted: ") and "run the same add again to finish" in msg, msg
    saved = int(msg.split("interrupted: ")[1].split()[0])
    # the message is exact: the index holds what it says was saved, and all of it is committed
    assert len(indexed_paths(db)) == saved == len(logged(log))
    assert stop_seconds < 10
    assert run(["check", "--db", db]).returncode == 0
    r = run(["add", crash_corpus, "--db", db])
    assert r.returncode == 0 and f"{saved} unchanged" in r.stdout, r.stdout + r.stderr
    assert content_differences(db, ref) == {"documents": 0, "fingerprints": 0, "texts": 0}


def test_ctrl_c_while_a_batch_commits_waits_for_it(crash_corpus, tmp_path):
    # Batches commit in a writer thread; a slow commit (WINNOWDB_TEST_PAUSE_AFTER_BATCH: the
    # writer sleeps after each commit, before it is counted) keeps the main thread waiting for
    # it. Ctrl-C then must wait until that batch is committed *and counted*: the message, the
    # log of commits and the index agree, several times at different moments.
    rng = random.Random(5)
    for i in range(3):
        db, log = tmp_path / f"slow{i}.duckdb", tmp_path / f"log{i}"
        env = dict(child_env(log), WINNOWDB_TEST_PAUSE_AFTER_BATCH="0.4")
        p = subprocess.Popen([*CHILD, "add", str(crash_corpus / "docs"), "--db", str(db)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while not logged(log) and time.time() < deadline and p.poll() is None:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.4))
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 130, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        saved = int(err.split("interrupted: ")[1].split()[0])
        assert saved == len(logged(log)) == len(indexed_paths(db)) > 0, err
        assert run(["check", "--db", db]).returncode == 0


def test_ctrl_c_during_a_huge_document(crash_corpus, tmp_path):
    # Ctrl-C while a (streamed) huge document is being stored: it stops promptly, the document
    # is not half-stored, the documents committed before it are kept.
    db, log = tmp_path / "huge.duckdb", tmp_path / "log"
    env = dict(child_env(log), WINNOWDB_TEST_HUGE_CHARS="100000")
    big = tmp_path / "big"
    big.mkdir()
    for name in ("a.txt", "b.txt"):
        shutil.copy(crash_corpus / "docs" / "part000" / "doc00000.txt", big / name)
    (big / "c_huge.txt").write_text(
        "".join((crash_corpus / "big" / "part000" / f"doc0000{i}.txt").read_text() for i in range(3)) * 8)
    p = subprocess.Popen([*CHILD, "add", str(big), "--db", str(db)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while len(logged(log)) < 2 and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    t0 = time.perf_counter()
    out, err = p.communicate(timeout=60)
    if p.returncode == 0:
        pytest.skip("the huge document was stored before Ctrl-C arrived")
    assert p.returncode == 130, err
    assert time.perf_counter() - t0 < 10
    assert err.strip().startswith("interrupted: 2 documents"), err
    assert {Path(x).name for x in indexed_paths(db)} == {"a.txt", "b.txt"}
    assert run(["check", "--db", db]).returncode == 0
