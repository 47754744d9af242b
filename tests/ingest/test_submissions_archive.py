"""Classes, past years and starter code: ``add -d 1`` (submissions), ``add --label`` with
``pairs --new`` (archive mode) and ``add --boilerplate`` with code, end to end on real files and
real DuckDB indexes, through the CLI and the Python API."""
from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import numpy as np
import pytest

import winnowdb

DATA = Path(__file__).resolve().parents[1] / "data" / "code"


class Essays:
    """Random prose from a fixed vocabulary of made-up words: two essays share a passage only
    when one was copied from the other."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        self.vocab = np.array(["".join(self.rng.choice(letters, size=self.rng.integers(3, 10)))
                               for _ in range(3000)])

    def __call__(self, words: int) -> str:
        w = self.vocab[self.rng.integers(0, len(self.vocab), size=words)]
        sentences = [" ".join(w[i:i + 11]).capitalize() + "." for i in range(0, words, 11)]
        return "\n".join(" ".join(sentences[i:i + 5]) for i in range(0, len(sentences), 5)) + "\n"

    def edit(self, text: str, changes: int) -> str:
        """``text`` with ``changes`` words replaced, spread out (a light paraphrase)."""
        words = text.split(" ")
        for i in np.linspace(5, len(words) - 5, changes).astype(int):
            words[i] = self.vocab[self.rng.integers(0, len(self.vocab))]
        return " ".join(words)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def ok(result):
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    return result


def pairs_json(cli, db: Path, *extra) -> list[dict]:
    return json.loads(ok(cli("pairs", "--db", db, "--top", "0", "--format", "json", *extra)).stdout)


def by_pair(rows: list[dict]) -> dict[frozenset, dict]:
    out = {}
    for r in rows:
        key = frozenset((r["a"], r["b"]))
        assert key not in out, f"pair listed twice: {r}"
        out[key] = r
    return out


def containment_of(row: dict, name: str) -> float:
    """How much of submission ``name`` is found in the other side of ``row``."""
    return row["containment_a"] if row["a"] == name else row["containment_b"]


def query(db: Path, sql: str, params=None) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


# ================================================================== 8. submissions (-d 1)
@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """A class: one folder per student, 1-3 files each.

    alice: a report bob copied + a large original project + a short original note
    bob:   only the copy of alice's report
    carol: a draft and a final version of the same essay (near-identical) + an original file
    dave:  three original files
    """
    essays = Essays(8)
    root = tmp_path_factory.mktemp("class") / "cs101"
    report = essays(500)
    write(root / "alice" / "report.txt", report)
    write(root / "alice" / "project.txt", essays(2000))
    write(root / "alice" / "note.txt", essays(120))
    write(root / "bob" / "my_report.txt", report)
    draft = essays(700)
    write(root / "carol" / "draft.txt", draft)
    write(root / "carol" / "final.txt", essays.edit(draft, 6))
    write(root / "carol" / "extra.txt", essays(300))
    for name in ("a.txt", "b.txt", "c.txt"):
        write(root / "dave" / name, essays(400))
    return root.resolve()


def test_submissions_pair_students_not_files(cli, klass, tmp_path):
    db = tmp_path / "class.duckdb"
    ok(cli("add", klass, "-d", "1", "--db", db))
    students = {s: str(klass / s) for s in ("alice", "bob", "carol", "dave")}
    # every file knows its submission: its student's folder
    subs = dict(query(db, "SELECT path, submission FROM documents"))
    assert len(subs) == 10
    for path, sub in subs.items():
        assert sub == str(klass / Path(path).relative_to(klass).parts[0]), (path, sub)

    rows = pairs_json(cli, db)
    pairs = by_pair(rows)
    for r in rows:
        assert r["a"] != r["b"], r
        assert {r["a"], r["b"]} <= set(students.values()), f"a pair not between submissions: {r}"
    # the copying students pair; the self-similar student pairs with nobody, least of all herself
    alice_bob = pairs.get(frozenset((students["alice"], students["bob"])))
    assert alice_bob is not None, rows
    assert not any(students["carol"] in (r["a"], r["b"]) for r in rows), rows
    assert not any(students["dave"] in (r["a"], r["b"]) for r in rows), rows
    # bob is all copy; alice's copied report is a small part of everything alice handed in
    assert containment_of(alice_bob, students["bob"]) == pytest.approx(1.0)
    assert containment_of(alice_bob, students["alice"]) < 0.35


def test_submission_size_counts_all_its_files(klass, tmp_path):
    db = tmp_path / "class_api.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([klass], submission_depth=1)
        rows = idx.pairs(top=0)
    alice, bob = str(klass / "alice"), str(klass / "bob")
    pair = by_pair(rows)[frozenset((alice, bob))]

    def distinct_hashes(where: str, value: str) -> int:
        return query(db, "SELECT COUNT(DISTINCT f.hash) FROM fingerprints f JOIN documents d USING (doc) "
                         f"WHERE d.{where} = ?", [value])[0][0]

    size = {alice: distinct_hashes("submission", alice), bob: distinct_hashes("submission", bob)}
    report_only = distinct_hashes("path", str(klass / "alice" / "report.txt"))
    assert size[alice] > 3 * report_only  # the project and the note count too
    fingerprints = {pair["a"]: pair["fingerprints_a"], pair["b"]: pair["fingerprints_b"]}
    assert fingerprints == size
    assert pair["shared"] == pytest.approx(size[bob], rel=0.01)
    assert containment_of(pair, alice) == pytest.approx(pair["shared"] / size[alice])
    assert containment_of(pair, bob) == pytest.approx(1.0)


def test_without_submissions_the_self_similar_files_pair(cli, klass, tmp_path):
    """The control for the tests above: without -d, carol's draft and final version are two
    documents and pair strongly (so 'carol pairs with nobody' above is the grouping's doing)."""
    db = tmp_path / "files.duckdb"
    ok(cli("add", klass, "--db", db))
    pairs = by_pair(pairs_json(cli, db))
    draft_final = pairs.get(frozenset((str(klass / "carol" / "draft.txt"), str(klass / "carol" / "final.txt"))))
    assert draft_final is not None and min(draft_final["containment_a"], draft_final["containment_b"]) > 0.8
    alice_bob = pairs.get(frozenset((str(klass / "alice" / "report.txt"), str(klass / "bob" / "my_report.txt"))))
    assert alice_bob is not None and alice_bob["containment_a"] == pytest.approx(1.0)


def test_clusters_are_of_submissions(cli, klass, tmp_path):
    """clusters, like pairs, are between submissions: carol's near-identical draft and final do
    not make a cluster by themselves; alice and bob do, with all their files."""
    db = tmp_path / "class_clusters.duckdb"
    ok(cli("add", klass, "-d", "1", "--db", db))
    students = {s: str(klass / s) for s in ("alice", "bob", "carol", "dave")}
    files = {sub: sorted(p for p, in query(db, "SELECT path FROM documents WHERE submission = ?", [path]))
             for sub, path in students.items()}
    for method in ("exact", "super"):
        data = json.loads(ok(cli("clusters", "--db", db, "--method", method, "--format", "json")).stdout)
        assert len(data) == 1, (method, data)
        c = data[0]
        assert c["submissions"] == [students["alice"], students["bob"]]
        assert sorted(c["members"]) == sorted(files["alice"] + files["bob"]) and c["size"] == 4
        sub_of = {p: sub for sub, ps in files.items() for p in ps}
        for pair in (c["tightest"], c["loosest"]):
            assert sub_of[pair["a"]] != sub_of[pair["b"]], (method, pair)  # never two files of one student
        assert {c["tightest"]["a"], c["tightest"]["b"]} == {str(klass / "alice" / "report.txt"),
                                                           str(klass / "bob" / "my_report.txt")}
        # one link joins them (bob's copy, folded into alice's report as an identical duplicate):
        # it is both the tightest and the loosest pair; alice's other files come along unlinked
        assert c["tightest"]["kind"] == "identical" and c["loosest"] == c["tightest"]
        # stored: every document is in its submission's cluster, named by its smallest doc id
        stored = query(db, "SELECT d.submission, c.cluster, c.cluster_size, d.doc FROM clusters c "
                           "JOIN documents d USING (doc)")
        by_sub: dict[str, set] = {}
        for sub, cluster, size, _ in stored:
            by_sub.setdefault(sub, set()).add((cluster, size))
        first = {sub: min(doc for s, _, _, doc in stored if s == students[sub]) for sub in students}
        assert by_sub[students["alice"]] == by_sub[students["bob"]] == {(min(first["alice"], first["bob"]), 4)}
        assert by_sub[students["carol"]] == {(first["carol"], 3)}
        assert by_sub[students["dave"]] == {(first["dave"], 3)}


def test_a_chain_of_submissions_is_one_cluster_and_its_loosest_pair_spans_it(cli, tmp_path):
    """ann ~ ben (ben's first file is ann's essay, lightly edited) and ben ~ cho (cho's file is
    ben's second one, lightly edited): one cluster of three submissions, whose loosest pair is
    two files of different students that share nothing (resemblance is not transitive)."""
    essays = Essays(21)
    root = tmp_path / "class"
    first, second = essays(600), essays(600)
    write(root / "ann" / "essay.txt", first)
    write(root / "ben" / "one.txt", essays.edit(first, 5))
    write(root / "ben" / "two.txt", second)
    write(root / "cho" / "mine.txt", essays.edit(second, 5))
    write(root / "dan" / "own.txt", essays(600))
    db = tmp_path / "chain.duckdb"
    ok(cli("add", root, "-d", "1", "--db", db))
    data = json.loads(ok(cli("clusters", "--db", db, "--format", "json")).stdout)
    assert len(data) == 1, data
    c = data[0]
    assert c["submissions"] == [str(root / s) for s in ("ann", "ben", "cho")] and c["size"] == 4
    owner = lambda path: Path(path).parent.name  # noqa: E731
    tight, loose = c["tightest"], c["loosest"]
    assert owner(tight["a"]) != owner(tight["b"]) and tight["resemblance"] > 0.7
    assert owner(loose["a"]) != owner(loose["b"]) and loose["resemblance"] == 0.0


def test_without_submissions_carols_versions_cluster(cli, klass, tmp_path):
    """The control: without -d every file is its own submission, and carol's two versions of one
    essay are a cluster (so 'no carol cluster' above is the grouping's doing)."""
    db = tmp_path / "files_clusters.duckdb"
    ok(cli("add", klass, "--db", db))
    data = json.loads(ok(cli("clusters", "--db", db, "--format", "json")).stdout)
    clusters = {frozenset(c["members"]) for c in data}
    assert frozenset((str(klass / "carol" / "draft.txt"), str(klass / "carol" / "final.txt"))) in clusters
    assert frozenset((str(klass / "alice" / "report.txt"), str(klass / "bob" / "my_report.txt"))) in clusters
    assert all(c["submissions"] == sorted(c["members"]) for c in data)


# ================================================================== 9. archive mode (--label, --new)
@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """old/ (2025) and new/ (2026), one folder per student, indexed with the CLI (-d 1).

    old: ann and ben copy each other; cat and dan are original
    new: eve copies old cat; fay and gus copy each other; hal is original
    """
    from typer.testing import CliRunner

    from winnowdb.cli import app

    essays = Essays(9)
    root = tmp_path_factory.mktemp("archive")
    ann, cat = essays(600), essays(600)
    fay = essays(600)
    write(root / "old" / "ann" / "essay.txt", ann)
    write(root / "old" / "ben" / "essay.txt", essays.edit(ann, 8))
    write(root / "old" / "ben" / "appendix.txt", essays(100))
    write(root / "old" / "cat" / "essay.txt", cat)
    write(root / "old" / "dan" / "essay.txt", essays(600))
    write(root / "new" / "eve" / "essay.txt", essays(200) + essays.edit(cat, 8))
    write(root / "new" / "fay" / "essay.txt", fay)
    write(root / "new" / "gus" / "essay.txt", essays.edit(fay, 10) + essays(150))
    write(root / "new" / "hal" / "essay.txt", essays(600))
    db = root / "archive.duckdb"
    runner = CliRunner(env={"COLUMNS": "80", "WINNOWDB_DB": None})
    ok(runner.invoke(app, ["add", str(root / "old"), "-d", "1", "--label", "2025", "--db", str(db)]))
    ok(runner.invoke(app, ["add", str(root / "new"), "-d", "1", "--label", "2026", "--db", str(db)]))
    return root.resolve(), db


def _labels(db: Path) -> dict[str, str]:
    rows = query(db, "SELECT DISTINCT submission, label FROM documents WHERE kind = 'document'")
    labels = dict(rows)
    assert len(labels) == len(rows), "a submission with two labels"
    return labels


def _check_archive_pairs(rows: list[dict], labels: dict[str, str], root: Path) -> None:
    sides = [(labels[r["a"]], labels[r["b"]]) for r in rows]
    assert ("2025", "2025") not in sides, [r for r, s in zip(rows, sides) if s == ("2025", "2025")]
    assert all("2026" in s for s in sides), sides
    pairs = by_pair(rows)
    eve_cat = frozenset((str(root / "new" / "eve"), str(root / "old" / "cat")))
    fay_gus = frozenset((str(root / "new" / "fay"), str(root / "new" / "gus")))
    assert eve_cat in pairs, "new x old copy missing"
    assert fay_gus in pairs, "new x new copy missing"
    assert containment_of(pairs[eve_cat], str(root / "old" / "cat")) > 0.5
    assert min(pairs[fay_gus]["containment_a"], pairs[fay_gus]["containment_b"]) > 0.5


def test_archive_mode_cli(cli, archive):
    root, db = archive
    labels = _labels(db)
    assert sorted(labels.values()) == ["2025"] * 4 + ["2026"] * 4
    everything = pairs_json(cli, db)
    ann_ben = frozenset((str(root / "old" / "ann"), str(root / "old" / "ben")))
    assert ann_ben in by_pair(everything), "without --new the old x old copy must be listed"
    new_only = pairs_json(cli, db, "--new", "2026")
    _check_archive_pairs(new_only, labels, root)
    # --new only filters: the same rows, values and order as the full list minus old x old
    assert new_only == [r for r in everything if "2026" in (labels[r["a"]], labels[r["b"]])]


def test_archive_mode_api(archive):
    root, db = archive
    labels = _labels(db)
    with winnowdb.open(db, read_only=True) as idx:
        everything = idx.pairs(top=0)
        new_only = idx.pairs(top=0, new_label="2026")
        old_only = idx.pairs(top=0, new_label="2025")
    assert frozenset((str(root / "old" / "ann"), str(root / "old" / "ben"))) in by_pair(everything)
    _check_archive_pairs(new_only, labels, root)
    assert new_only == [r for r in everything if "2026" in (labels[r["a"]], labels[r["b"]])]
    # and the other way round: 2025 against everything never lists a 2026 x 2026 pair
    assert old_only and all("2025" in (labels[r["a"]], labels[r["b"]]) for r in old_only)



def test_archive_mode_counts_what_the_full_list_counts(tmp_path):
    """``pairs --new`` reads only the rows of the new submissions' hashes, and counts each side's
    excluded hashes (boilerplate, above --max-df) from their own rows: the same sizes, scores and
    order as the full list, whatever the exclusions. Here with boilerplate, text every submission
    quotes, documents that repeat a passage (a hash at several positions), submissions of several
    documents, and max-df from 1 up."""
    essays = Essays(21)
    common, starter = essays(120), essays(150)
    old, new = tmp_path / "old", tmp_path / "new"
    texts = {name: essays(300) for name in "abcdefgh"}
    for i, name in enumerate("abcd"):
        body = texts[name] + common
        if i % 2:
            body = body + texts[name][:2000] + common  # passages repeated in the same document
        write(old / name / "essay.txt", starter + body)
        if i == 3:
            write(old / name / "notes.txt", essays(80) + common + texts["a"][:1500])  # a second document
    for i, name in enumerate("efgh"):
        body = texts[name] + common + essays.edit(texts["abcd"[i]], 6)[:2500]
        if i == 1:
            body = body + body[:1800]
        write(new / name / "essay.txt", body)
        if i == 2:
            write(new / name / "draft.txt", texts["e"][:2000] + essays(60))
    write(tmp_path / "starter.txt", starter)
    db = tmp_path / "archive.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "starter.txt"], boilerplate=True)
        idx.add([old], label="2025", submission_depth=1)
        idx.add([new], label="2026", submission_depth=1)
    labels = dict(query(db, "SELECT DISTINCT submission, label FROM documents WHERE kind = 'document'"))
    repeats = query(db, "SELECT COUNT(*) FROM documents WHERE kind = 'document' AND fingerprints > hashes")
    assert repeats[0][0] >= 2
    with winnowdb.open(db, read_only=True) as idx:
        for max_df in (1, 2, 3, 5, None):
            everything = idx.pairs(top=0, max_df=max_df)
            for label in ("2026", "2025"):
                want = [r for r in everything if label in (labels[r["a"]], labels[r["b"]])]
                assert idx.pairs(top=0, max_df=max_df, new_label=label) == want, (max_df, label)
            if max_df is None:
                assert any(labels[r["a"]] != labels[r["b"]] for r in everything)  # new x old copies


# ================================================================== 10. boilerplate with code
STARTER = '''"""CS101 assignment 4 starter code. Do not change the function signatures."""
import sys


def read_records(stream):
    """Return a list of (key, value) pairs, one per non-empty input line."""
    records = []
    for number, raw in enumerate(stream, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue  # blank lines and comments are skipped
        if "=" not in text:
            raise SystemExit("line %d: expected key=value" % number)
        key, sep, value = text.partition("=")
        records.append((key.strip(), value.strip()))
    return records


def write_report(rows, out=sys.stdout):
    """Print rows as an aligned two-column table."""
    width = max((len(str(left)) for left, right in rows), default=0)
    for left, right in rows:
        out.write(str(left).ljust(width) + "  " + str(right) + "\\n")


def check(condition, message):
    # used by the autograder: keep this function as it is
    if not condition:
        print("CHECK FAILED:", message, file=sys.stderr)
        return False
    return True

# ---- your code below ----
'''


def _strip_comments(code: str) -> str:
    return re.sub(r"(?m)\s*#[^\n\"']*$", "", code)


@pytest.fixture(scope="module")
def assignment(tmp_path_factory):
    """starter/ (the starter code) and class/ with three students who all embed it:
    alice adds her own program, bob (who deleted the starter's comments) another one, and carol
    copies alice's program with every identifier renamed."""
    root = tmp_path_factory.mktemp("assignment")
    write(root / "starter" / "starter.py", STARTER)
    alice_own = (DATA / "inventory.py").read_text(encoding="utf-8")
    bob_own = (DATA / "maze.py").read_text(encoding="utf-8")
    names = {n: f"v{i}" for i, n in enumerate("""Inventory owner items add_item category name price
        quantity total result cat entries most_valuable limit ranked load path handle data inventory
        row main argv value TAX_RATE""".split())}
    carol_own = re.sub(r"\b(" + "|".join(names) + r")\b", lambda m: names[m.group(1)], alice_own)
    write(root / "class" / "alice" / "solution.py", STARTER + "\n" + alice_own)
    write(root / "class" / "alice" / "README.txt", "Alice's solution to assignment 4.\n")
    write(root / "class" / "bob" / "solution.py", _strip_comments(STARTER) + "\n\n" + bob_own)
    write(root / "class" / "carol" / "solution.py", STARTER + "\n" + carol_own)
    return root.resolve()


def test_starter_code_never_counts(cli, assignment, tmp_path):
    root = assignment
    alice, bob, carol = (str(root / "class" / s) for s in ("alice", "bob", "carol"))

    # without the boilerplate, the starter code alone makes alice and bob pair strongly
    control = tmp_path / "no_boilerplate.duckdb"
    ok(cli("add", root / "class", "-d", "1", "--db", control))
    pairs = by_pair(pairs_json(cli, control))
    ab = pairs.get(frozenset((alice, bob)))
    assert ab is not None and max(ab["containment_a"], ab["containment_b"]) > 0.2, ab

    # with it (-b), they share nothing that counts; the real copy still does
    db = tmp_path / "boilerplate.duckdb"
    ok(cli("add", root / "starter", "-b", "--db", db))
    ok(cli("add", root / "class", "-d", "1", "--db", db))
    kinds = dict(query(db, "SELECT normalizer || ' ' || kind, COUNT(*) FROM documents GROUP BY ALL"))
    assert kinds == {"code:python boilerplate": 1, "code:python document": 3, "prose document": 1}
    rows = pairs_json(cli, db)
    pairs = by_pair(rows)
    ab = pairs.get(frozenset((alice, bob)))
    assert ab is None or max(ab["containment_a"], ab["containment_b"]) < 0.05, ab
    cb = pairs.get(frozenset((bob, carol)))
    assert cb is None or max(cb["containment_a"], cb["containment_b"]) < 0.05, cb
    ac = pairs.get(frozenset((alice, carol)))
    assert ac is not None and min(ac["containment_a"], ac["containment_b"]) > 0.8, ac
    assert rows[0]["a"] == alice and rows[0]["b"] == carol  # the copy ranks first


def test_re_adding_without_options_keeps_submissions_and_labels(tmp_path, cli):
    """Re-adding a folder to pick up new files must not rewrite what earlier options set: the
    indexed files keep their submission and label (and are unchanged, not re-fingerprinted), a
    late file inside a submission's folder joins it with its label, and only options given
    again change anything."""
    import json

    from conftest import random_words

    root = tmp_path / "class"
    for student, seed in (("alice", 1), ("bob", 2)):
        (root / student).mkdir(parents=True)
        words = random_words(seed, 200)
        (root / student / "main.txt").write_text(" ".join(words[:100]))
        (root / student / "util.txt").write_text(" ".join(words[:100]))  # her own two files share all
    db = tmp_path / "index.duckdb"

    def docs():
        out = cli("sql", "SELECT path, submission, label FROM documents ORDER BY path", "--db", db, "-f", "json")
        return [(Path(r["path"]).relative_to(root).as_posix(), Path(r["submission"]).relative_to(root).as_posix(),
                 r["label"]) for r in json.loads(out.stdout)]

    assert cli("add", "-d", "1", "--label", "2026", root, "--db", db).exit_code == 0
    before = docs()
    assert before == [("alice/main.txt", "alice", "2026"), ("alice/util.txt", "alice", "2026"),
                      ("bob/main.txt", "bob", "2026"), ("bob/util.txt", "bob", "2026")]
    r = cli("add", root, "--db", db)
    assert " ".join(r.stdout.split()).startswith("0 added, 0 updated, 4 unchanged")
    assert docs() == before
    assert json.loads(cli("pairs", "--db", db, "-f", "json").stdout) == []  # never within a submission

    (root / "alice" / "late.txt").write_text(" ".join(random_words(1, 100)))
    r = cli("add", root / "alice", "--db", db)
    assert " ".join(r.stdout.split()).startswith("1 added, 0 updated, 2 unchanged")
    assert ("alice/late.txt", "alice", "2026") in docs()
    assert json.loads(cli("pairs", "--db", db, "-f", "json").stdout) == []

    r = cli("add", "--label", "2025", root / "bob", "--db", db)  # an option given again changes it
    assert " ".join(r.stdout.split()).startswith("0 added, 2 updated, 0 unchanged")
    assert [d for d in docs() if d[0].startswith("bob/")] == [("bob/main.txt", "bob", "2025"),
                                                              ("bob/util.txt", "bob", "2025")]


def test_a_late_file_added_with_the_depth_takes_its_submissions_label(tmp_path, cli):
    """With -d given again but no --label, a new file of a labelled submission takes its label:
    a submission with two labels listed every pair twice, with containments over 100%."""
    import json

    from conftest import random_words

    root = tmp_path / "class"
    for student, seed in (("alice", 1), ("bob", 2)):
        (root / student).mkdir(parents=True)
        (root / student / "main.txt").write_text(" ".join(random_words(seed, 150)))
    (root / "bob" / "copy.txt").write_text(" ".join(random_words(1, 150)))  # bob copied alice
    db = tmp_path / "index.duckdb"
    assert cli("add", "-d", "1", "--label", "2023", root, "--db", db).exit_code == 0
    (root / "alice" / "late.txt").write_text(" ".join(random_words(3, 150)))
    assert cli("add", "-d", "1", root, "--db", db).exit_code == 0
    labels = json.loads(cli("sql", "SELECT DISTINCT label FROM documents", "--db", db, "-f", "json").stdout)
    assert labels == [{"label": "2023"}]
    pairs = json.loads(cli("pairs", "--db", db, "-f", "json").stdout)
    assert len(pairs) == 1 and all(0 < p[c] <= 1 for p in pairs for c in ("containment_a", "containment_b"))

    # files of one submission with different labels (given explicitly): still one row per pair
    assert cli("add", "--label", "2024", root / "alice" / "late.txt", "--db", db).exit_code == 0
    pairs = json.loads(cli("pairs", "--db", db, "-f", "json").stdout)
    assert len(pairs) == 1 and all(0 < p[c] <= 1 for p in pairs for c in ("containment_a", "containment_b"))
    assert len(json.loads(cli("pairs", "--new", "2024", "--db", db, "-f", "json").stdout)) == 1


def test_a_submission_is_new_when_any_of_its_files_carries_the_label(tmp_path, cli):
    import json

    from conftest import random_words

    root = tmp_path / "class"
    for student, seed in (("s1", 1), ("s2", 1)):  # s2 copied s1
        (root / student).mkdir(parents=True)
        (root / student / "x.txt").write_text(" ".join(random_words(seed, 150)))
    db = tmp_path / "index.duckdb"
    assert cli("add", "-d", "1", "--label", "old", root, "--db", db).exit_code == 0
    (root / "s1" / "y.txt").write_text(" ".join(random_words(7, 150)))
    assert cli("add", "--label", "new", root / "s1" / "y.txt", "--db", db).exit_code == 0
    for label in ("new", "old"):  # s1 holds files of both labels: it is new for both
        pairs = json.loads(cli("pairs", "--new", label, "--db", db, "-f", "json").stdout)
        assert [(Path(p["a"]).name, Path(p["b"]).name) for p in pairs] == [("s1", "s2")], label
