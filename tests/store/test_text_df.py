"""``code_text_df``, the text family's document frequencies, kept by every write (``store/
text_df.py``): an add of documents in new submissions adds to their hashes' df, a removal of
whole submissions takes away, any other write counts its documents' hashes again, a large one
the whole table. After every kind of write the table must equal a
count from the rows (``sql/code_text_df_counted.sql``, what ``winnowdb check`` compares it with).
"""
from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import winnowdb
from winnowdb.store import sqlfiles, text_df
from winnowdb.store.check import check_index

SHARED = '''
def merge_intervals(intervals):
    """Merge overlapping intervals; the result is sorted by start."""
    ordered = sorted(intervals, key=lambda pair: pair[0])
    merged = [list(ordered[0])]
    for start, stop in ordered[1:]:
        if start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], stop)  # overlapping: extend the last one
        else:
            merged.append([start, stop])
    return merged
'''
TEMPLATE = '''
# Assignment 3 starter code: do not change the signature below.
def read_input(path):
    """Read the grader's input file and return its lines without newlines."""
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\\n") for line in handle]
'''
TEAM = '''
def histogram(words):
    """Count how often each word occurs, most frequent first."""
    counts = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))
'''


def _own(name: str) -> str:
    return f'''
def {name}_main(argv):
    """Entry point of {name}: parse {name}'s options and run its {name} loop."""
    settings_{name} = dict(arg.split("=", 1) for arg in argv if "=" in arg)
    return run_{name}(settings_{name}, verbose="{name}-verbose" in argv)
'''


@pytest.fixture()
def corpus(tmp_path) -> Path:
    root = tmp_path / "corpus"
    (root / "team" / "ann").mkdir(parents=True)
    (root / "team" / "bob").mkdir(parents=True)
    (root / "a.py").write_text(TEMPLATE + SHARED + _own("alpha"))
    (root / "b.py").write_text(SHARED + _own("beta"))
    (root / "c.py").write_text(_own("gamma"))
    (root / "template.py").write_text(TEMPLATE)
    (root / "team" / "ann" / "x.py").write_text(TEAM + _own("xray"))
    (root / "team" / "ann" / "y.py").write_text(TEAM + _own("yankee"))
    (root / "team" / "bob" / "z.py").write_text(TEAM + SHARED)
    (root / "notes.txt").write_text("A page of prose about intervals and histograms, not code at all. " * 20)
    return root


def _table_and_count(db: Path) -> tuple[dict, dict]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        kept = dict(con.execute("SELECT hash, df FROM code_text_df").fetchall())
        assert len(kept) == con.execute("SELECT COUNT(*) FROM code_text_df").fetchall()[0][0], "a hash kept twice"
        counted = dict(con.execute(sqlfiles.load("code_text_df_counted")).fetchall())
        return kept, counted
    finally:
        con.close()


@pytest.mark.parametrize("share", [text_df.RECOUNT_SHARE, 10**9], ids=["default", "never the whole table"])
def test_kept_text_df_equals_a_count_after_every_kind_of_write(corpus, tmp_path, monkeypatch, share):
    monkeypatch.setattr(text_df, "RECOUNT_SHARE", share)
    calls: list[str] = []
    for name in ("grow", "shrink", "fill_text_df"):  # the real functions, their calls recorded
        real = getattr(text_df, name)
        monkeypatch.setattr(text_df, name, lambda *a, _real=real, _name=name: (calls.append(_name), _real(*a)))
    db = tmp_path / "i.duckdb"
    seen = {"shared": False, "boilerplate": False}

    def step(name: str, write, *how: str) -> None:
        calls.clear()
        with winnowdb.open(db) as idx:
            write(idx)
        kept, counted = _table_and_count(db)
        assert kept == counted, name
        report = check_index(db)
        assert report.ok, f"{name}: {report.lines()}"
        seen["shared"] |= any(df >= 2 for df in kept.values())
        assert set(how) <= set(calls), (name, calls)  # the way this write was meant to take

    step("code added", lambda idx: idx.add([corpus / n for n in ("a.py", "b.py", "c.py")]), "grow")
    step("a submission of several files", lambda idx: idx.add([corpus / "team"], submission_depth=1), "grow")
    before = _table_and_count(db)[0]
    step("boilerplate added", lambda idx: idx.add([corpus / "template.py"], boilerplate=True))
    seen["boilerplate"] = len(_table_and_count(db)[0]) < len(before)  # its hashes left the table
    (corpus / "f.py").write_text(TEMPLATE + _own("foxtrot"))  # the template's hashes stay out
    step("code quoting the boilerplate added", lambda idx: idx.add([corpus / "f.py"]), "grow")
    (corpus / "b.py").write_text(SHARED.replace("merged", "joined") + _own("beta"))
    step("a changed file added again", lambda idx: idx.add([corpus / "b.py"]), "shrink")
    (corpus / "team" / "ann" / "w.py").write_text(TEAM + SHARED + _own("whiskey"))  # TEAM: ann has it
    step("a new file of an existing submission", lambda idx: idx.add([corpus / "team"], submission_depth=1))
    step("text added", lambda idx: idx.add([corpus / "notes.txt"]))
    assert "fill_text_df" not in calls  # no code: nothing counted again
    step("boilerplate removed", lambda idx: idx.remove([corpus / "template.py"]))
    step("code removed", lambda idx: idx.remove([corpus / "a.py"]), "shrink")
    step("a submission removed", lambda idx: idx.remove([corpus / "team" / "bob"]), "shrink")
    (corpus / "d.py").write_text(TEAM + _own("delta"))
    (corpus / "e.py").write_text(TEAM + SHARED + _own("echo"))
    step("two more added", lambda idx: idx.add([corpus / "d.py", corpus / "e.py"]), "grow")
    step("two removed", lambda idx: idx.remove([corpus / "b.py", corpus / "d.py"]), "shrink")
    step("one file of a submission removed", lambda idx: idx.remove([corpus / "team" / "ann" / "x.py"]))
    assert "shrink" not in calls  # y.py and w.py keep ann's hashes
    step("a submission of several files removed", lambda idx: idx.remove([corpus / "team" / "ann"]), "shrink")
    step("the rest removed", lambda idx: idx.remove([corpus]), "shrink")
    assert seen == {"shared": True, "boilerplate": True}, "the steps would check nothing"
