"""Broder's three kinds of duplicate (identical, lexically equivalent, fingerprint equivalent) on
constructed files, through the Python API and the CLI. Real files, real DuckDB indexes."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import winnowdb
from winnowdb.analysis.duplicates import find_duplicates, representatives
from winnowdb.errors import WinnowError

ROSE = "a rose is a rose is a rose"


def _text(seed: int, words: int = 120) -> str:
    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
             for _ in range(2000)]
    lines, line = [], []
    for _ in range(words):
        line.append(rng.choice(vocab))
        if len(line) == 12:
            lines.append(" ".join(line).capitalize() + ".")
            line = []
    lines.append(" ".join(line))
    return "\n".join(lines) + "\n"


def _names(group) -> list[str]:
    return [Path(p).name for p in group["members"]]


@pytest.fixture(scope="module")
def dup_index(tmp_path_factory):
    """Text files with identical, lexically equivalent and unrelated members (default settings)."""
    root = tmp_path_factory.mktemp("dups")
    base = _text(1)
    (root / "base.txt").write_text(base)
    (root / "base_copy.txt").write_text(base)  # identical bytes
    (root / "base_copy2.txt").write_text(base)  # identical bytes
    # same letters and digits in the same order: only case, punctuation and line breaks differ
    (root / "base_shouted.txt").write_text(base.upper().replace(".", "!").replace("\n", "\n\n"))
    (root / "other.txt").write_text(_text(2))
    (root / "other_copy.txt").write_text(_text(2))
    (root / "third.txt").write_text(_text(3))
    (root / "edited.txt").write_text(base.replace(base.split()[40], "zzzzqqq", 1))  # a near duplicate
    db = root / "dups.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([root])
    return root, db


def test_identical_lexical_groups(dup_index):
    root, db = dup_index
    with winnowdb.open(db, read_only=True) as idx:
        groups = find_duplicates(idx.reader)
    by_level = {}
    for g in groups:
        by_level.setdefault(g["level"], []).append(_names(g))
    assert by_level["identical"] == [["base.txt", "base_copy.txt", "base_copy2.txt"],
                                     ["other.txt", "other_copy.txt"]]
    # the lexical group adds the shouted version to the identical ones; other/other_copy are only
    # identical, so no lexical group repeats them
    assert by_level["lexical"] == [["base.txt", "base_copy.txt", "base_copy2.txt", "base_shouted.txt"]]
    # a one-word edit changes fingerprints: a near duplicate, not an exact one
    assert "fingerprint" not in by_level
    assert all("edited.txt" not in names and "third.txt" not in names for names in sum(by_level.values(), []))


def test_group_fields(dup_index):
    _, db = dup_index
    with winnowdb.open(db, read_only=True) as idx:
        groups = find_duplicates(idx.reader)
        docs = dict(idx.store.connection.execute("SELECT path, doc FROM documents").fetchall())
    g = groups[0]
    assert set(g) >= {"level", "group", "representative", "size", "members", "docs", "fingerprints"}
    assert g["size"] == len(g["members"]) == len(g["docs"])
    assert g["representative"] == g["members"][0]
    assert g["group"] == min(g["docs"]) == docs[g["representative"]]
    assert [docs[p] for p in g["members"]] == g["docs"]
    assert g["fingerprints"] > 0


def test_representatives_nest(dup_index):
    _, db = dup_index
    with winnowdb.open(db, read_only=True) as idx:
        reps = representatives(idx.reader)
    # each level's representative is the smallest doc of its group, and levels nest
    assert (reps.lexical <= reps.identical).all()
    assert (reps.fingerprint <= reps.lexical).all()
    for level in ("identical", "lexical", "fingerprint"):
        rep = getattr(reps, level)
        rows = {int(d): i for i, d in enumerate(reps.doc)}
        assert all(rep[rows[int(r)]] == r for r in rep)  # a representative represents itself


def test_fingerprint_equivalent(tmp_path):
    # Broder's example: with 4-word shingles "a rose is a rose is a rose" has 3 shingles, and so
    # has the longer text: same shingle set, different words -> fingerprint (shingle) equivalent
    (tmp_path / "rose.txt").write_text(ROSE + "\n")
    (tmp_path / "rose_longer.txt").write_text(ROSE + " is a rose\n")
    (tmp_path / "rose_caps.txt").write_text("A Rose is a ROSE, is a rose!\n")
    (tmp_path / "tulip.txt").write_text("a tulip is a tulip is a tulip\n")
    db = tmp_path / "words.duckdb"
    with winnowdb.open(db, normalizer="words", selection="all", k=4) as idx:
        idx.add([tmp_path])
        groups = find_duplicates(idx.reader)
    assert [(g["level"], _names(g)) for g in groups] == [
        ("lexical", ["rose.txt", "rose_caps.txt"]),
        ("fingerprint", ["rose.txt", "rose_caps.txt", "rose_longer.txt"]),
    ]
    assert groups[1]["fingerprints"] == 3


def test_fingerprint_equivalence_is_verified_not_guessed(tmp_path):
    # Same size, same smallest and largest hash would be a signature tie; sets that differ in
    # one member must never be grouped. Build many small docs over few shingles and check every
    # reported group against the exact sets.
    rng = random.Random(7)
    words = ["red", "green", "blue", "gold"]
    for i in range(60):
        (tmp_path / f"d{i:02d}.txt").write_text(" ".join(rng.choice(words) for _ in range(6)) + "\n")
    db = tmp_path / "small.duckdb"
    with winnowdb.open(db, normalizer="words", selection="all", k=2) as idx:
        idx.add([tmp_path])
        groups = find_duplicates(idx.reader, ["fingerprint"])
        sets = {}
        for doc, h in idx.store.connection.execute("SELECT doc, hash FROM fingerprints").fetchall():
            sets.setdefault(doc, set()).add(h)
    assert groups, "expected some fingerprint-equivalent documents among 60 tiny ones"
    for g in groups:
        first = sets[g["docs"][0]]
        assert all(sets[d] == first for d in g["docs"])
    grouped = {d for g in groups for d in g["docs"]}
    # and no equal sets were missed (lexically equal ones are grouped at that level instead)
    by_set = {}
    for d, s in sets.items():
        by_set.setdefault(frozenset(s), []).append(d)
    with winnowdb.open(db, read_only=True) as idx:
        reps = representatives(idx.reader)
    fp = dict(zip(reps.doc.tolist(), reps.fingerprint.tolist()))
    for docs in by_set.values():
        assert len({fp[d] for d in docs}) == 1
    assert grouped <= set(fp)


def _sql_residue(h: int, p: int) -> int:
    """``h % p`` as SQL computes it (the remainder takes the sign of ``h``)."""
    r = abs(h) % p
    return -r if h < 0 else r


def test_sets_alike_at_their_ends_do_not_hide_equal_ones(tmp_path):
    # Two fingerprint sets can share their size and their smallest and largest hash and residue
    # and still differ inside (two releases' changelogs do). The smallest document id among such
    # sets must not stand for the others: two equal sets among them are still found. With k = 1
    # word and every shingle kept, a document's set is the set of its words' hashes.
    pool = [f"w{i}" for i in range(40)]
    probe = tmp_path / "probe"
    probe.mkdir()
    for word in pool:
        (probe / f"{word}.txt").write_text(word + "\n")
    with winnowdb.open(tmp_path / "probe.duckdb", normalizer="words", selection="all", k=1) as idx:
        idx.add([probe])
        hash_of = {Path(p).stem: h for p, h in idx.store.connection.execute(
            "SELECT d.path, f.hash FROM fingerprints f JOIN documents d ON d.doc = f.doc").fetchall()}
    by_hash = sorted(pool, key=lambda w: hash_of[w])
    by_residue = sorted(pool, key=lambda w: _sql_residue(hash_of[w], 2147483629))
    ends = sorted({by_hash[0], by_hash[-1], by_residue[0], by_residue[-1]})
    x, y = [w for w in pool if w not in ends][:2]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text(" ".join(ends + [x]) + "\n")  # the smallest id, another set
    (corpus / "b.txt").write_text(" ".join(ends + [y]) + "\n")
    (corpus / "c.txt").write_text(" ".join([y] + ends[::-1] + [y]) + "\n")  # b's set in other words
    with winnowdb.open(tmp_path / "i.duckdb", normalizer="words", selection="all", k=1) as idx:
        idx.add([corpus])
        ids = {Path(p).name: d for d, p in idx.store.connection.execute("SELECT doc, path FROM documents").fetchall()}
        groups = find_duplicates(idx.reader, ["fingerprint"])
    assert ids["a.txt"] < min(ids["b.txt"], ids["c.txt"])
    assert [_names(g) for g in groups] == [["b.txt", "c.txt"]]


def test_level_filter_and_bad_level(dup_index):
    _, db = dup_index
    with winnowdb.open(db, read_only=True) as idx:
        assert {g["level"] for g in find_duplicates(idx.reader, ["lexical"])} == {"lexical"}
        with pytest.raises(WinnowError):
            find_duplicates(idx.reader, ["nope"])


def test_cli_duplicates(dup_index, cli):
    root, db = dup_index
    res = cli("duplicates", "--db", db, "--format", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert [g["level"] for g in data] == ["identical", "identical", "lexical"]
    assert set(data[0]) == {"level", "group", "size", "representative", "members", "fingerprints"}

    res = cli("duplicates", "--db", db, "--format", "csv", "--level", "identical")
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert lines[0] == "level,group,size,doc,path,representative"
    assert len(lines) == 1 + 3 + 2  # one row per member

    res = cli("duplicates", "--db", db)
    assert res.exit_code == 0 and "lexical" in res.stdout and "identical" in res.stdout


def test_cli_duplicates_errors(tmp_path, cli):
    res = cli("duplicates", "--db", tmp_path / "missing.duckdb")
    assert res.exit_code != 0
    assert "Traceback" not in res.output
    assert res.output.startswith("error: no index at")  # one message (wrapped at 80 columns)


def test_no_duplicates(tmp_path, cli):
    (tmp_path / "a.txt").write_text(_text(11))
    (tmp_path / "b.txt").write_text(_text(12))
    db = tmp_path / "x.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([tmp_path])
        assert find_duplicates(idx.reader) == []
    res = cli("duplicates", "--db", db)
    assert res.exit_code == 0 and "no duplicate documents" in res.stdout
