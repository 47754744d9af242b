"""Crash safety: ``add`` killed with SIGKILL loses nothing that committed, and running the same
``add`` again gives exactly the index an uninterrupted run gives; a ``remove`` killed while it
deletes its rows after its commit is finished by the next write. Ctrl-C stops cleanly with one
line saying what was saved.

The killed process is the real CLI (``crash_child.py``) with small batches (so the corpus has
about fifteen commit points) and a lowered huge-document threshold (so three larger files take
the segmented path, each committed alone).

No test here races the clock. The child holds at a chosen point -- before or after a given
commit, while a huge document is being fingerprinted, before a run of fingerprints is stored,
while the index file is being created, or at exit -- and tells the test it is there; only then
does the test kill or interrupt it. The random-kill test adds random delays on top, but the
child waits at exit until it is killed, so every run is killed and every outcome is checked: how
fast the machine is changes where the kills land, never whether the test passes. The seed is
printed on failure; set WINNOWDB_CRASH_SEED to vary it.
"""
from __future__ import annotations

import os
import random
import shutil
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from winnowdb.store.check import check_index

from .reliability_helpers import HeldChild, content_differences, indexed_paths, raw_sql, run

KILLS = 20
NO_DIFFERENCE = {"documents": 0, "fingerprints": 0, "texts": 0}


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
    assert diff == NO_DIFFERENCE, f"{context}: {diff}"
    return have


@dataclass
class Reference:
    db: Path
    seconds: float  # how long the uninterrupted add took: the range of the random delays
    kinds: list[str]  # of each commit: "batch" or "huge"


@pytest.fixture(scope="module")
def reference(crash_corpus, tmp_path_factory):
    """An uninterrupted run of the same child on a fresh index: its index, time and commits."""
    d = tmp_path_factory.mktemp("reference")
    db = d / "ref.duckdb"
    t0 = time.perf_counter()
    child = HeldChild(["add", crash_corpus, "--db", db], env=child_env(d / "log"), hold_dir=d / "hold")
    status, out, err = child.finish()
    seconds = time.perf_counter() - t0
    assert status == 0, err
    assert "1203 added" in out
    assert len(logged(d / "log")) == 1203
    kinds = child.marker("exit")["kinds"]
    assert kinds.count("huge") == 3 and kinds.count("batch") >= 8, kinds
    return Reference(db, seconds, kinds)


def assert_complete(db: Path, ref: Reference, context: str) -> None:
    """A chain of runs ended with a complete add: the index is exactly the reference's."""
    assert content_differences(db, ref.db) == NO_DIFFERENCE, context
    assert indexed_paths(db) == indexed_paths(ref.db), context
    r = run(["check", "--db", db])
    assert r.returncode == 0 and r.stdout.startswith("ok: "), f"{context}: {r.stdout}{r.stderr}"
    leftovers = [p.name for p in db.parent.iterdir() if ".creating-" in p.name]
    assert not leftovers, f"{context}: temporary files left: {leftovers}"


def kill_chains(crash_corpus, ref: Reference, tmp_path: Path, moments, context: str) -> tuple[int, int]:
    """Runs of the same add on one index, each killed with SIGKILL at the moment ``moments``
    gives it, until one completes; then a new chain starts from no index at all.

    Each moment is ``(holds, delay)``: the child holds at ``holds`` (and always at exit, so that
    it is killed even when its add has finished), and is killed ``delay`` seconds after it
    reached the first of them (0: at once, exactly there; the hold is released first when
    ``delay`` > 0). Every kill is checked: the index opens, passes `check`, holds every document
    the child saw commit, and each is exactly the reference's; a completed chain is exactly the
    reference. Returns (kills during an add, chains completed)."""
    work = tmp_path / "work"
    db, log = work / "crashed.duckdb", work / "commits.log"
    mid_add = chains = 0
    fresh = True
    for run_no, (holds, delay) in enumerate(moments, 1):
        if fresh:
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            fresh = False
        where = f"{context}, run {run_no}, holds {holds}, delay {delay:.2f}s"
        child = HeldChild(["add", crash_corpus, "--db", db], env=child_env(log), hold_dir=tmp_path / "hold",
                          holds=[*holds, "exit"])
        point, info = child.wait_held(*holds, "exit")
        if delay and point != "exit":
            child.release(point)
            time.sleep(delay)  # a random moment after the hold point: wherever the add is then
        child.send(signal.SIGKILL)
        status, out, err = child.finish()
        assert status == -signal.SIGKILL, f"{where}: {status} {err}"
        assert "Traceback" not in err, f"{where}: {err}"
        done = child.marker("exit")
        if done is not None:  # the add had finished (and closed the index) before the kill
            assert done["status"] == 0, f"{where}: {err}"
            assert_complete(db, ref, where)
            chains += 1
            fresh = True
            continue
        mid_add += 1
        if not db.exists():  # killed before the index was created: nothing may have committed
            assert not logged(log), where
            continue
        assert_healthy_subset(db, ref.db, log, where)
    # finish the last chain: the same add completes it to exactly the reference index
    if not fresh and db.exists():
        child = HeldChild(["add", crash_corpus, "--db", db], env=child_env(log), hold_dir=tmp_path / "hold")
        status, out, err = child.finish()
        assert status == 0, err
        assert_complete(db, ref, f"{context}, the last chain")
        chains += 1
    return mid_add, chains


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_nothing_committed(crash_corpus, reference, tmp_path):
    # KILLS runs, each killed at a random moment of the add: a random delay after a random commit
    # point (or after the start). The child waits at exit, so a run whose add finished before the
    # kill is killed too and completes its chain.
    seed = int(os.environ.get("WINNOWDB_CRASH_SEED", "20240604"))
    rng = random.Random(seed)
    commits = len(reference.kinds)

    def moments():
        for i in range(KILLS):
            n = rng.randint(0, commits - 1)
            delay = rng.uniform(0.0, reference.seconds / commits * 2)
            # every third kill lands exactly at its point: the first certainly during the add
            yield ([f"after:{n}"] if n else ["before:1"]), (0.0 if i % 3 == 0 else delay)

    mid_add, chains = kill_chains(crash_corpus, reference, tmp_path, moments(), f"seed {seed}")
    print(f"seed {seed}: {KILLS} kills, {mid_add} during an add, {chains} chains completed")
    assert mid_add >= 1, (mid_add, chains)


@pytest.mark.slow
def test_sigkill_at_each_kind_of_commit_point_loses_nothing_committed(crash_corpus, reference, tmp_path):
    # Exactly at the commit points, no delay. Each chain of runs: the first is killed at the
    # point named -- while a huge document is being fingerprinted (its rows are in the add's run,
    # nothing of it committed), after its commit (committed, not yet counted), before or after a
    # batch's commit in the writer thread, before the add's fingerprints are stored (everything
    # committed is still pending), while they are stored bucket by bucket (some buckets' rows
    # committed, their documents still pending), after the last bucket --; some second runs are
    # killed before or while they store the pending documents of the first (fold_pending, before
    # anything else); the last run completes.
    kinds = reference.kinds
    first_huge = kinds.index("huge") + 1
    batch = [i + 1 for i, kind in enumerate(kinds) if kind == "batch"][len(kinds) // 4]
    chains = [[f"stream:{first_huge}"], [f"after:{first_huge}", "store:1"], [f"before:{batch}"],
              [f"after:{batch}", "store:1"], ["store:1"], ["part:3", "part:2"], ["index:1"]]

    def moments():
        for chain in chains:
            for point in chain:
                yield [point], 0.0
            yield [], 0.0  # killed at exit: the add is complete

    mid_add, completed = kill_chains(crash_corpus, reference, tmp_path, moments(), "commit points")
    assert (mid_add, completed) == (sum(map(len, chains)), len(chains))


def test_sigkill_while_creating_the_index(crash_corpus, tmp_path):
    # A kill while the index file is being created must never leave a file that the next add
    # refuses ("not a DuckDB file"): creation is atomic. The child is killed when the temporary
    # file is complete and about to be linked into place, and right after it was (before its
    # first commit); the next add works and the dead child's temporary file is cleaned up.
    one = crash_corpus / "docs" / "part000"
    for i, point in enumerate(["link", "before:1"]):
        db = tmp_path / f"new{i}.duckdb"
        child = HeldChild(["add", one, "--db", db], env=child_env(tmp_path / f"log{i}"),
                          hold_dir=tmp_path / f"hold{i}", holds=[point])
        child.wait_held(point)
        temporaries = [p.name for p in tmp_path.iterdir() if p.name.startswith(f".{db.name}.creating-")]
        if point == "link":
            assert not db.exists() and temporaries
        else:
            assert db.exists() and not temporaries
        child.send(signal.SIGKILL)
        child.finish()
        r = run(["add", one, "--db", db])
        assert r.returncode == 0, f"{point}: {r.stderr}"
        assert "error" not in r.stderr
        assert r.stdout.startswith("200 added"), r.stdout
        assert check_index(db).ok
        assert not [p.name for p in tmp_path.iterdir() if ".creating-" in p.name]


def test_sigkill_while_a_removal_deletes_its_rows(crash_corpus, tmp_path):
    # A removal whose fingerprint rows are deleted after it commits, a span of buckets at a time
    # (store/purge.py; a large share makes this small index's removal take that way), killed
    # between two spans: its documents are gone, reads answer as an index whose removal finished,
    # `check` passes and notes the rows left, and the next remove deletes them.
    one = crash_corpus / "docs" / "part000"
    db, ref = tmp_path / "killed.duckdb", tmp_path / "ref.duckdb"
    assert run(["add", one, "--db", db]).returncode == 0
    shutil.copyfile(db, ref)
    files = sorted(one.iterdir())
    gone, later = files[::5], files[1]
    assert run(["remove", *gone, "--db", ref]).returncode == 0
    env = dict(child_env(tmp_path / "log"), WINNOWDB_TEST_PURGE_SHARE="1000000000")
    child = HeldChild(["remove", *gone, "--db", db], env=env, hold_dir=tmp_path / "hold", holds=["purge:3"])
    child.wait_held("purge:3")
    child.send(signal.SIGKILL)
    child.finish()
    report = check_index(db)
    assert report.ok, report.to_dict()
    assert any("removed documents still have fingerprint rows" in n for n in report.notes), report.notes
    assert content_differences(db, ref) == NO_DIFFERENCE
    for args in (["pairs", "--top", "0", "-f", "csv"], ["query", files[2], "-f", "json", "--top", "0"]):
        mine, theirs = run([*args, "--db", db]), run([*args, "--db", ref])
        assert mine.returncode == theirs.returncode == 0, mine.stderr + theirs.stderr
        assert mine.stdout.replace(str(db), str(ref)) == theirs.stdout
    for index in (db, ref):
        assert run(["remove", later, "--db", index]).returncode == 0
    report = check_index(db)
    assert report.ok and not any("removed documents" in n for n in report.notes), report.to_dict()
    orphans = raw_sql(db, "SELECT COUNT(*) FROM fingerprints f WHERE NOT EXISTS "
                          "(SELECT 1 FROM documents d WHERE d.doc = f.doc)")
    assert orphans == [(0,)] and raw_sql(db, "SELECT COUNT(*) FROM documents_removed") == [(0,)]
    assert content_differences(db, ref) == NO_DIFFERENCE


def interrupted_message(err: str) -> tuple[int, int]:
    """The one line an interrupted add prints: (documents saved, committed batches)."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    msg = lines[0]
    assert msg.startswith("interrupted: ") and "run the same add again to finish" in msg, msg
    words = msg.split()
    assert words[2:4] == ["documents", "in"] and words[5:7] == ["committed", "batches"], msg
    return int(words[1]), int(words[4])


def test_ctrl_c_stops_cleanly_and_says_what_was_saved(crash_corpus, reference, tmp_path):
    # Ctrl-C half-way through the add (held after a batch's commit, before it is counted): exit
    # 130, one line, and the count is exact -- every commit up to this one, nothing after it.
    # That nothing more is committed after the Ctrl-C is what "stops promptly" means here.
    db, log = tmp_path / "interrupted.duckdb", tmp_path / "log"
    n = next(i for i in range(len(reference.kinds) // 2, 0, -1) if reference.kinds[i - 1] == "batch")
    child = HeldChild(["add", crash_corpus, "--db", db], env=child_env(log), hold_dir=tmp_path / "hold",
                      holds=[f"after:{n}"])
    _, info = child.wait_held(f"after:{n}")
    child.send(signal.SIGINT)
    status, out, err = child.finish(timeout=120)
    assert status == 130, err
    saved, batches = interrupted_message(err)
    assert (saved, batches) == (info["committed_docs"], n), (err, info)
    # the message is exact: the index holds what it says was saved, and all of it is committed
    assert len(indexed_paths(db)) == saved == len(logged(log))
    assert run(["check", "--db", db]).returncode == 0
    r = run(["add", crash_corpus, "--db", db])
    assert r.returncode == 0 and f"{saved} unchanged" in r.stdout, r.stdout + r.stderr
    assert content_differences(db, reference.db) == NO_DIFFERENCE


@pytest.mark.parametrize("point", ["before:1", "after:1", "before:3", "after:3"])
def test_ctrl_c_while_a_batch_commits_waits_for_it(crash_corpus, tmp_path, point):
    # Batches commit in a writer thread. The child holds that thread just before a batch's
    # commit, or just after it (committed, not yet counted), and the test presses Ctrl-C right
    # then. add must wait until that batch is committed *and counted*: the message, the log of
    # commits and the index agree, and name exactly the batches up to this one.
    db, log = tmp_path / "slow.duckdb", tmp_path / "log"
    child = HeldChild(["add", crash_corpus / "docs", "--db", db], env=child_env(log), hold_dir=tmp_path / "hold",
                      holds=[point])
    _, info = child.wait_held(point)
    expected = info["committed_docs"] + (len(info["paths"]) if point.startswith("before") else 0)
    child.send(signal.SIGINT)
    status, out, err = child.finish(timeout=120)
    assert status == 130, err
    saved, batches = interrupted_message(err)
    assert (saved, batches) == (expected, int(point.split(":")[1])), (err, info)
    assert saved == len(logged(log)) == len(indexed_paths(db)) > 0, err
    assert run(["check", "--db", db]).returncode == 0


def huge_corpus(crash_corpus: Path, folder: Path) -> Path:
    """Two small files and one huge one (stored alone, after the small ones' batch)."""
    folder.mkdir()
    for name in ("a.txt", "b.txt"):
        shutil.copy(crash_corpus / "docs" / "part000" / "doc00000.txt", folder / name)
    (folder / "c_huge.txt").write_text(
        "".join((crash_corpus / "big" / "part000" / f"doc0000{i}.txt").read_text() for i in range(3)) * 8)
    return folder


@pytest.mark.parametrize("point,stored", [
    ("stream:2", {"a.txt", "b.txt"}),                # being fingerprinted: abandoned
    ("before:2", {"a.txt", "b.txt", "c_huge.txt"}),  # its commit has begun: committed, counted
    ("after:2", {"a.txt", "b.txt", "c_huge.txt"}),   # committed, not yet counted: counted
])
def test_ctrl_c_during_a_huge_document(crash_corpus, tmp_path, point, stored):
    # Ctrl-C while a huge document is being stored. While it is being fingerprinted, the document
    # is abandoned, not half-stored; once its commit has begun, the commit is not interrupted and
    # it is counted. Either way the documents committed before it are kept and the message says
    # exactly what was saved.
    db, log = tmp_path / "huge.duckdb", tmp_path / "log"
    env = dict(child_env(log), WINNOWDB_TEST_HUGE_CHARS="100000")
    big = huge_corpus(crash_corpus, tmp_path / "big")
    child = HeldChild(["add", big, "--db", db], env=env, hold_dir=tmp_path / "hold", holds=[point])
    _, info = child.wait_held(point)
    assert info["committed_docs"] == 2 + (point == "after:2") and info["commits"] == 1 + (point != "stream:2"), info
    child.send(signal.SIGINT)
    status, out, err = child.finish(timeout=120)
    assert status == 130, err
    saved, batches = interrupted_message(err)
    assert (saved, batches) == (len(stored), len(stored) - 1), err
    assert {Path(x).name for x in indexed_paths(db)} == stored
    assert {Path(x).name for x in logged(log)} == stored
    assert run(["check", "--db", db]).returncode == 0
