"""The statistics an index keeps (store/stats.py) stay equal to a count over its rows through every
kind of write: adds of new files, a submission of several files, a new file of an existing
submission, a changed file added again, removals, boilerplate added and removed (code
fingerprinted again: tests/ingest/test_upgrade_code_tokens.py). After each step the kept numbers
are compared with a count made here in Python from the stored rows (not with the SQL that
``check`` runs), and ``check`` must agree.

The default --max-df rule (the ``default_max_df`` view: a quarter of the submissions, lowered
where the pair-counting self-join would pass its row budget) is checked on a synthetic histogram.
"""
from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

import winnowdb
from winnowdb.store.check import check_index


def _words(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(VOCAB) for _ in range(n)]


VOCAB = ["".join(random.Random(i).choice("abcdefghijklmnop") for _ in range(5)) for i in range(300)]


def _counted(db: Path) -> dict:
    """The statistics, counted here from the stored rows."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        kind_sub = {d: (k, s) for d, k, s in con.execute("SELECT doc, kind, sub FROM documents").fetchall()}
        subs: dict[int, set] = defaultdict(set)
        boiler: set[int] = set()
        per_doc: dict[int, set] = defaultdict(set)
        for h, d in con.execute("SELECT hash, doc FROM fingerprints").fetchall():
            kind, sub = kind_sub[d]
            per_doc[d].add(h)
            if kind == "document":
                subs[h].add(sub)
            else:
                boiler.add(h)
        return {
            "shared": {h: len(s) for h, s in subs.items() if len(s) >= 2},
            "distinct_hashes": len(subs),
            "boilerplate": boiler,
            "hashes": {d: len(per_doc.get(d, ())) for d in kind_sub},
        }
    finally:
        con.close()


def _kept(db: Path) -> dict:
    con = duckdb.connect(str(db), read_only=True)
    try:
        shared_rows = con.execute("SELECT hash, df FROM shared_hashes").fetchall()
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        return {
            "shared": dict(shared_rows),
            "shared_rows": len(shared_rows),
            "distinct_hashes": int(meta["distinct_hashes"]),
            "boilerplate": {h for (h,) in con.execute("SELECT hash FROM boilerplate_hashes").fetchall()},
            "boilerplate_rows": con.execute("SELECT COUNT(*) FROM boilerplate_hashes").fetchall()[0][0],
            "hashes": dict(con.execute("SELECT doc, hashes FROM documents").fetchall()),
            "default_max_df": int(meta["default_max_df"]),
            "default_max_df_now": con.execute("SELECT max_df FROM default_max_df").fetchall()[0][0],
        }
    finally:
        con.close()


def _assert_exact(db: Path, step: str) -> None:
    kept, counted = _kept(db), _counted(db)
    assert kept["shared"] == counted["shared"], step
    assert kept["shared_rows"] == len(counted["shared"]), f"{step}: a hash kept twice"
    assert kept["distinct_hashes"] == counted["distinct_hashes"], step
    assert kept["boilerplate"] == counted["boilerplate"], step
    assert kept["boilerplate_rows"] == len(counted["boilerplate"]), f"{step}: a boilerplate hash kept twice"
    assert kept["hashes"] == counted["hashes"], step
    assert kept["default_max_df"] == kept["default_max_df_now"], step
    report = check_index(db)
    assert report.ok, f"{step}: {report.lines()}"


@pytest.fixture()
def corpus(tmp_path):
    """Essays sharing passages in many ways: a common passage in most, copies, partial copies."""
    rng = random.Random(7)
    root = tmp_path / "corpus"
    root.mkdir()
    common = _words(rng, 40)
    originals = [_words(rng, 200) for _ in range(6)]
    for i, words in enumerate(originals):
        (root / f"e{i}.txt").write_text(" ".join(common + words) + "\n")
    (root / "copy0.txt").write_text(" ".join(originals[0]) + "\n")
    (root / "mix12.txt").write_text(" ".join(originals[1][:100] + originals[2][100:]) + "\n")
    team = root / "team"
    for member, part in (("ann", 0), ("bob", 1)):
        (team / member).mkdir(parents=True)
        (team / member / "a.txt").write_text(" ".join(originals[3][part * 100:(part + 1) * 100]) + "\n")
        (team / member / "b.txt").write_text(" ".join(originals[4][:80]) + "\n")  # both share this
    (root / "bp").mkdir()
    (root / "bp" / "header.txt").write_text(" ".join(common) + "\n")
    code = root / "code"
    code.mkdir()
    body = "def f(a, b):\n    total = 0\n    for i in range(a):\n        total += i * b\n    return total\n"
    (code / "x.py").write_text(body)
    (code / "y.py").write_text(body.replace("total", "acc").replace("f(", "g("))
    return root


@pytest.mark.parametrize("pieces", [False, True], ids=["default", "a statement per span"])
def test_kept_statistics_equal_a_count_after_every_kind_of_write(corpus, tmp_path, monkeypatch, pieces):
    db = tmp_path / "i.duckdb"
    winnowdb.open(db, normalizer="words", k=5, w=4).close()
    flushes = []
    if pieces:  # every add in many spans, and the shared_hashes rows each holds inserted at once
        from winnowdb.store import buckets, stats

        monkeypatch.setattr(buckets, "SPAN_ROWS", 1)
        monkeypatch.setattr(stats, "SHARED_BATCH_ROWS", 1)
        flush = stats.Update.flush

        def counted(update):
            flushes.append(1)
            flush(update)

        monkeypatch.setattr(stats.Update, "flush", counted)

    def step(name: str, write) -> None:
        with winnowdb.open(db) as idx:  # closed before counting: check opens the file itself
            write(idx)
        _assert_exact(db, name)

    step("first add", lambda idx: idx.add([corpus / f"e{i}.txt" for i in range(4)]))
    step("second add", lambda idx: idx.add([corpus / "copy0.txt", corpus / "mix12.txt", corpus / "e4.txt"]))
    step("a submission of several files", lambda idx: idx.add([corpus / "team"], submission_depth=1))
    (corpus / "team" / "ann" / "c.txt").write_text((corpus / "e5.txt").read_text())
    step("a new file of an existing submission", lambda idx: idx.add([corpus / "team"], submission_depth=1))
    (corpus / "copy0.txt").write_text((corpus / "e2.txt").read_text())
    step("a changed file added again", lambda idx: idx.add([corpus / "copy0.txt"]))
    step("boilerplate added", lambda idx: idx.add([corpus / "bp"], boilerplate=True))
    step("code added", lambda idx: idx.add([corpus / "code"]))
    assert _kept(db)["shared"] and _kept(db)["boilerplate"], "nothing shared: the steps would check nothing"
    step("documents removed", lambda idx: idx.remove([corpus / "e1.txt", corpus / "team" / "bob" / "b.txt"]))
    # a file whose hashes another file of its submission holds too: the submission keeps them
    (corpus / "team" / "ann" / "d.txt").write_text((corpus / "team" / "ann" / "b.txt").read_text())
    step("a second copy in a submission", lambda idx: idx.add([corpus / "team"], submission_depth=1))
    step("one of two copies in a submission removed", lambda idx: idx.remove([corpus / "team" / "ann" / "d.txt"]))
    step("boilerplate removed", lambda idx: idx.remove([corpus / "bp" / "header.txt"]))
    step("most documents removed", lambda idx: idx.remove(
        [corpus / "copy0.txt", corpus / "mix12.txt"] + [corpus / f"e{i}.txt" for i in (0, 2, 3, 4)]))
    if pieces:  # after() flushes once per add (7 here): more flushes are inserts in the middle of one
        assert len(flushes) > 12, len(flushes)


def test_a_first_add_tallies_shared_hashes_alone(corpus, tmp_path, monkeypatch):
    # into an index with nothing stored, a hash one new document alone holds is only counted
    # (Tally.singles): the tallies hold the hashes of two or more documents; a later add keeps
    # every hash, as their stored counts are added
    from winnowdb.store import buckets, stats

    monkeypatch.setattr(buckets, "SPAN_ROWS", 1)
    tallies: list = []
    real = stats.Update.tally
    monkeypatch.setattr(stats.Update, "tally", lambda self, rows: tallies.append(real(self, rows)) or tallies[-1])
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db, normalizer="words", k=5, w=4) as idx:
        idx.add([corpus / f"e{i}.txt" for i in range(4)] + [corpus / "copy0.txt"])
    first, tallies[:] = list(tallies), []
    assert all((t.counts >= 2).all() for t in first)
    assert sum(t.hashes.shape[0] for t in first) > 0 and sum(int(t.singles[0]) for t in first) > 0
    kept = _kept(db)
    assert sum(t.hashes.shape[0] + int(t.singles[0]) for t in first) == kept["distinct_hashes"]
    assert sorted(h for t in first for h in t.hashes.tolist()) == sorted(kept["shared"])
    with winnowdb.open(db) as idx:
        idx.add([corpus / "e5.txt"])
    assert tallies and all(int(t.singles[0]) == 0 for t in tallies)
    assert sum(t.hashes.shape[0] for t in tallies) > 0 and any((t.counts == 1).any() for t in tallies)
    _assert_exact(db, "an add after the first")


def _rule(db: Path, submissions: int, histogram: dict[int, int]) -> int:
    """default_max_df on an index holding ``submissions`` one-file submissions and shared hashes
    with this histogram {df: number of hashes} (rows made in SQL: only the rule is under test)."""
    with winnowdb.open(db) as idx:
        con = idx.store.connection
        con.execute("INSERT INTO documents SELECT i, 'f' || i, 'f' || i, NULL, 'document', 'text', '', '', "
                    "'utf-8', 0, 0, 0, 0, 0, TIMESTAMP '2026-01-01', i, 0, NULL, NULL FROM range(1, ? + 1) t(i)",
                    [submissions])
        start = 0
        for df, hashes in histogram.items():
            con.execute("INSERT INTO shared_hashes SELECT i, ? FROM range(?, ?) t(i)", [df, start, start + hashes])
            start += hashes
        return con.execute("SELECT max_df FROM default_max_df").fetchall()[0][0]


@pytest.mark.parametrize("submissions,histogram,expected", [
    (400, {}, 100),                          # a quarter of the submissions
    (20, {}, 10),                            # never below 10
    (8000, {}, 1000),                        # never above 1000
    (400, {2: 1000, 50: 10}, 100),           # the self-join stays within 10 million rows
    # 50,000 hashes in 20 submissions make 9.5 million rows, and 300,000 more in 50 would pass the
    # budget: the cap stops at 20
    (400, {20: 50_000, 50: 300_000}, 20),
    (400, {11: 10, 12: 2_000_000}, 11),      # the budget is spent at df 12: cap 11
    (400, {5: 1_000_000}, 100),              # exactly 10 million rows: within the budget
    (400, {5: 2_000_000}, 10),               # spent below 10: never below 10
])
def test_default_max_df_rule(tmp_path, submissions, histogram, expected):
    assert _rule(tmp_path / "r.duckdb", submissions, histogram) == expected
