"""Every add appends its fingerprints as a run ordered by hash; store/merge.py records the runs
and merges them into one when they cost lookups too much (``merge_due``), in place, a bucket of
hashes per transaction. A merge changes no row and no answer, only the order of the rows (that
the file does not grow is measured at 100,000 documents: bench/RESULTS.md); an interrupted one
leaves the same rows (merged in part, its runs still recorded as due); ``upgrade`` merges an
index that does not record its runs.
"""
from __future__ import annotations

import random
from pathlib import Path

import duckdb
import pytest
from conftest import age_code_tokens, ok

import winnowdb
from winnowdb.store import merge
from winnowdb.store.check import check_index
from winnowdb.store.layout import ROW_GROUP_ROWS
from winnowdb.store.schema import RUNS_KEY

CODE = Path(__file__).resolve().parents[1] / "data" / "code"


def _essays(root: Path, n: int, seed: int) -> Path:
    """``n`` essays; every third carries a passage of an essay of an earlier folder (seed - 1)."""
    root.mkdir(parents=True)
    rng = random.Random(seed)
    old = random.Random(seed - 1)
    words = ["".join(random.Random(i).choice("abcdefghijklmnop") for _ in range(5)) for i in range(800)]
    for i in range(n):
        text = [rng.choice(words) for _ in range(250)]
        if i % 3 == 0:
            text[50:50] = [old.choice(words) for _ in range(120)]
        (root / f"e{seed}-{i:02d}.txt").write_text(" ".join(text) + "\n")
    return root


def _two_adds(tmp_path: Path) -> Path:
    """An index built by two adds of 15 essays (two runs), the second copying from the first."""
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        for seed in (1, 2):
            idx.add([_essays(tmp_path / f"y{seed}", 15, seed)], jobs=1)
    return db


def _read(db: Path, sql: str) -> list[tuple]:
    """The rows of ``sql`` on the index file, read with plain DuckDB."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _rows(db: Path) -> list[tuple]:
    return _read(db, "SELECT hash, doc, pos FROM fingerprints ORDER BY ALL")


def _shared(db: Path) -> list[tuple]:
    return _read(db, "SELECT hash, df FROM shared_hashes ORDER BY ALL")


def _descents(db: Path) -> int:
    """How many times the hash goes down from one row to the next in the table's physical order
    (a table of one run ordered by hash: 0)."""
    return _read(db, "SELECT COUNT(*) FROM (SELECT hash < LAG(hash) OVER (ORDER BY rowid) AS down "
                     "FROM fingerprints) WHERE down")[0][0]


@pytest.mark.parametrize(("runs", "due"), [
    (None, False), ([], False), ([5_000_000], False),
    ([40_000_000, 400_000], False),  # a small add next to a big index: one row group per lookup more
    ([10_000_000] * 4, True),  # four big runs: four row groups per looked-up hash
    ([100] * 3, False), ([100] * 4, True),  # tiny runs: one row group each, against one for them all
])
def test_merge_is_due_when_the_runs_cost_three_times_one_run(runs, due):
    assert merge.merge_due(runs) is due


def test_adds_record_their_runs_and_the_fourth_small_one_merges(tmp_path):
    db = tmp_path / "index.duckdb"
    seen = []
    with winnowdb.open(db) as idx:
        for seed in (1, 2, 3):
            assert idx.add([_essays(tmp_path / f"y{seed}", 6, seed)], jobs=1).merged_seconds == 0
        runs = merge.runs_of(idx.store)
        assert len(runs) == 3 and sum(runs) == idx.store.value("fingerprint_rows_total") < ROW_GROUP_ROWS
        before_pairs = idx.pairs(top=0)
        s = idx.add([_essays(tmp_path / "y4", 6, 4)], jobs=1, on_merge=lambda done, of: seen.append((done, of)))
        assert s.merged_seconds > 0 and seen[-1][0] == seen[-1][1]
        total = idx.store.value("fingerprint_rows_total")
        assert merge.runs_of(idx.store) == [total] and total < ROW_GROUP_ROWS  # four runs of one row group each
        after_pairs = idx.pairs(top=0)
    assert before_pairs and all(p in after_pairs for p in before_pairs)
    assert _descents(db) == 0
    assert check_index(db).ok


def test_a_merge_changes_no_row_and_no_answer(tmp_path):
    db = _two_adds(tmp_path)
    rows = _rows(db)
    assert _descents(db) > 0  # two runs
    with winnowdb.open(db) as idx:
        pairs = idx.pairs(top=0)
        hits = idx.query(tmp_path / "y2" / "e2-00.txt")
        merge.merge(idx.store)
        assert idx.pairs(top=0) == pairs and idx.query(tmp_path / "y2" / "e2-00.txt") == hits
    assert pairs and hits
    assert _rows(db) == rows and _descents(db) == 0
    assert check_index(db).ok


def test_an_interrupted_merge_leaves_the_same_rows_and_answers(tmp_path):
    db = _two_adds(tmp_path)
    rows, runs = _rows(db), None
    with winnowdb.open(db) as idx:
        runs = merge.runs_of(idx.store)
        pairs = idx.pairs(top=0)

        def stop(done: int, of: int) -> None:
            if done == 10:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            merge.merge(idx.store, stop)
        assert merge.runs_of(idx.store) == runs  # still due: the next add merges again
        assert idx.pairs(top=0) == pairs
    assert _rows(db) == rows
    assert check_index(db).ok
    with winnowdb.open(db) as idx:  # the next merge finishes
        merge.merge(idx.store)
    assert _rows(db) == rows and _descents(db) == 0


def test_upgrade_merges_an_index_that_does_not_record_its_runs(tmp_path, cli):
    db = _two_adds(tmp_path)
    con = duckdb.connect(str(db))  # as an older winnowdb left it: no record of the runs
    try:
        con.execute("DELETE FROM meta WHERE key = ?", [RUNS_KEY])
    finally:
        con.close()
    rows, shared = _rows(db), _shared(db)
    assert any("winnowdb upgrade` rewrites them" in note for note in check_index(db).notes)
    r = ok(cli("upgrade", "--db", db))
    assert "fingerprints rewritten as one run ordered by hash" in r.stdout
    assert _rows(db) == rows and _descents(db) == 0 and _shared(db) == shared
    report = check_index(db)
    assert report.ok and not any("upgrade" in note for note in report.notes)
    r = ok(cli("upgrade", "--db", db))
    assert "nothing to do" in r.stdout


def _three_adds(tmp_path: Path) -> Path:
    """An index of three small adds (three runs): the next add makes a merge due."""
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        for seed in (1, 2, 3):
            idx.add([_essays(tmp_path / f"y{seed}", 6, seed)], jobs=1)
    return db


def _stop_at(bucket: int):
    def stop(done: int, of: int) -> None:
        if done == bucket:
            raise KeyboardInterrupt
    return stop


def test_ctrl_c_during_an_adds_merge_stops_the_merge_alone(tmp_path, cli):
    db = _three_adds(tmp_path)
    with winnowdb.open(db) as idx:
        s = idx.add([_essays(tmp_path / "y4", 6, 4)], jobs=1, on_merge=_stop_at(10))
        assert s.merge_interrupted and not s.interrupted and s.added == 6 and s.merged_seconds > 0
        runs = merge.runs_of(idx.store)
        assert len(runs) == 4 and merge.merge_due(runs)  # still due
        assert any("y4" in p["a"] + p["b"] for p in idx.pairs(top=0))  # the new documents are indexed
    rows = _rows(db)
    report = check_index(db)
    assert _descents(db) > 0 and report.ok and any("merge is due" in note for note in report.notes)
    r = ok(cli("upgrade", "--db", db))  # upgrade finishes the merge
    assert "merged into one" in r.stdout
    report = check_index(db)
    assert _rows(db) == rows and _descents(db) == 0 and report.ok and not report.notes
    assert "nothing to do" in ok(cli("upgrade", "--db", db)).stdout


def test_the_cli_says_an_interrupted_merge_lost_nothing(tmp_path, cli, monkeypatch):
    db = _three_adds(tmp_path)
    real = merge.merge
    # Ctrl-C at bucket 10
    monkeypatch.setattr(merge, "merge", lambda store, on_bucket=None, **kw: real(store, _stop_at(10), **kw))
    r = cli("add", str(_essays(tmp_path / "y4", 6, 4)), "--db", db, "-j", "1")
    assert r.exit_code == 130
    assert r.stdout.startswith("6 added, 0 updated")
    assert "interrupted while merging the fingerprint runs" in r.stderr and "every document is indexed" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    with winnowdb.open(db) as idx:
        assert len(merge.runs_of(idx.store)) == 4
    assert check_index(db).ok


def test_upgrade_that_retokenizes_code_merges_once(tmp_path, cli, monkeypatch):
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([CODE], jobs=1)
        for seed in (1, 2):
            idx.add([_essays(tmp_path / f"y{seed}", 6, seed)], jobs=1)
        s = idx.add([_essays(tmp_path / "y3", 6, 3)], jobs=1, on_merge=_stop_at(10))
        assert s.merge_interrupted  # four runs, their merge due
    age_code_tokens(db)  # its code made by an older tokenizer: upgrade fingerprints it again
    merges = []
    real = merge.merge
    monkeypatch.setattr(merge, "merge",
                        lambda store, on_bucket=None, **kw: merges.append(1) or real(store, on_bucket, **kw))
    r = ok(cli("upgrade", "--db", db))
    assert "fingerprinted again" in r.stdout
    assert merges == [1]  # re-tokenizing stored a run, which made the merge due and did it
    report = check_index(db)
    assert _descents(db) == 0 and report.ok and not report.notes


BIG, YEAR = 40_000_000, 400_000  # a big run costs a lookup 400 row groups, a year's run 49


@pytest.mark.parametrize(("runs", "first"), [
    (None, None), ([(BIG, 0)], None), ([(BIG, 0), (YEAR, 9)], None),
    # four big runs: merging the newest ones would rewrite more than half the rows: all
    ([(10_000_000, 0), (10_000_000, 5), (10_000_000, 9), (10_000_000, 12)], 0),
    # a big index and years of 3.3M rows or more (400 row groups each): the years alone
    ([(BIG, 0), (3_300_000, 10), (3_300_000, 20), (3_300_000, 30)], 1),
    ([(BIG, 0), (10_000_000, 10), (3_300_000, 20), (3_300_000, 30)], 1),
    # a run without its first document recorded (as a winnowdb before partial merges wrote it):
    # only where the newest runs are merged alone does it matter
    ([(BIG, None), (3_300_000, 10), (3_300_000, 20), (3_300_000, 30)], 1),
    ([(BIG, 0), (3_300_000, None), (3_300_000, 20), (3_300_000, 30)], 0),
    ([(100, 0)] * 4, 0),  # tiny runs: merging three of four rewrites most rows: all
])
def test_a_due_merge_rewrites_the_newest_runs_when_that_is_enough(runs, first):
    assert merge.merge_from(runs) == first
    if first is not None:
        kept, tail = [r for r, _ in runs[:first]], sum(r for r, _ in runs[first:])
        assert not merge.merge_due(kept + [tail])  # the merge leaves the runs not due


def _four_adds(tmp_path: Path) -> Path:
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        for seed, n in ((1, 30), (2, 6), (3, 6), (4, 6)):
            idx.add([_essays(tmp_path / f"y{seed}", n, seed)], jobs=1)
    return db


def test_a_merge_of_the_newest_runs_leaves_the_older_ones_and_every_answer(tmp_path):
    db = _four_adds(tmp_path)
    rows = _rows(db)
    with winnowdb.open(db) as idx:
        runs = merge.recorded_run_docs(idx.store.connection)
        assert [d for _, d in runs] == sorted(d for _, d in runs) and all(d is not None for _, d in runs)
        pairs, hits = idx.pairs(top=0), idx.query(tmp_path / "y4" / "e4-00.txt")
        first = _read_store(idx, "SELECT hash, doc, pos FROM fingerprints ORDER BY rowid")[:runs[0][0]]
        merge.merge(idx.store, first_run=1)
        assert merge.recorded_run_docs(idx.store.connection) == [runs[0], (sum(r for r, _ in runs[1:]), runs[1][1])]
        assert idx.pairs(top=0) == pairs and idx.query(tmp_path / "y4" / "e4-00.txt") == hits
        # the oldest run's rows stay first, as they were; the newer ones follow as one run
        physical = _read_store(idx, "SELECT hash, doc, pos FROM fingerprints ORDER BY rowid")
        assert physical[:runs[0][0]] == first
        assert physical[runs[0][0]:] == sorted(physical[runs[0][0]:])
        assert min(doc for _, doc, _ in physical[runs[0][0]:]) == runs[1][1]
    assert pairs and hits
    assert _rows(db) == rows
    assert check_index(db).ok


def test_an_old_record_of_runs_still_merges_them_all(tmp_path):
    db = _four_adds(tmp_path)
    with winnowdb.open(db) as idx:  # as a winnowdb before partial merges recorded them: no documents
        runs = merge.runs_of(idx.store)
        with idx.store.transaction() as con:
            con.execute("UPDATE meta SET value = ? WHERE key = ?", [",".join(map(str, runs)), RUNS_KEY])
        assert merge.recorded_run_docs(idx.store.connection) == [(r, None) for r in runs]
        merge.merge(idx.store, first_run=1)
        assert merge.runs_of(idx.store) == [sum(runs)]
    assert _descents(db) == 0


def _read_store(idx, sql: str) -> list[tuple]:
    return idx.store.connection.execute(sql).fetchall()


def test_an_interrupted_merge_of_the_newest_runs_loses_nothing_and_merges_again(tmp_path):
    db = _four_adds(tmp_path)
    rows = _rows(db)
    with winnowdb.open(db) as idx:
        runs = merge.recorded_run_docs(idx.store.connection)
        pairs = idx.pairs(top=0)
        with pytest.raises(KeyboardInterrupt):
            merge.merge(idx.store, _stop_at(10), first_run=1)
        assert merge.recorded_run_docs(idx.store.connection) == runs  # still due
        assert idx.pairs(top=0) == pairs
    assert _rows(db) == rows
    assert check_index(db).ok
    with winnowdb.open(db) as idx:  # the next merge of the newest runs finishes
        merge.merge(idx.store, first_run=1)
        assert merge.recorded_run_docs(idx.store.connection) == [runs[0], (sum(r for r, _ in runs[1:]), runs[1][1])]
        physical = _read_store(idx, "SELECT hash, doc, pos FROM fingerprints ORDER BY rowid")
        assert physical[runs[0][0]:] == sorted(physical[runs[0][0]:])
    assert _rows(db) == rows
