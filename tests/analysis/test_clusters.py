"""Clustering: union-find, the exact and super-shingle paths, folding duplicates, the stored
clusters table, the CLI, and the portability rules of the SQL files. Real files, real indexes."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import random_words
from hypothesis import given, settings
from hypothesis import strategies as st

import winnowdb
from winnowdb.analysis.clusters import cluster, connected_components
from winnowdb.errors import WinnowError
from winnowdb.store.sqlfiles import sql_dir

_words = random_words


def _replace_span(words: list[str], start: int, length: int, seed: int) -> list[str]:
    return words[:start] + _words(seed, length) + words[start + length:]


# ------------------------------------------------------------------ union-find
def test_union_find_joins_chains():
    # A~B, B~C => one cluster; D alone; E~F another
    labels = connected_components(6, [0, 1, 4], [1, 2, 5])
    assert labels.tolist() == [0, 0, 0, 3, 4, 4]


def test_union_find_long_chain_and_no_edges():
    n = 10_000
    order = np.random.default_rng(3).permutation(n)
    labels = connected_components(n, order[:-1], order[1:])  # one path visiting every node
    assert (labels == 0).all()
    assert connected_components(5, [], []).tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError):
        connected_components(3, [0], [3])


def _reference_components(n, edges):
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    roots = [find(x) for x in range(n)]
    smallest = {}
    for x, r in enumerate(roots):
        smallest.setdefault(r, x)
    return [smallest[r] for r in roots]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=80))))
def test_union_find_matches_reference(case):
    n, edges = case
    a = [e[0] for e in edges]
    b = [e[1] for e in edges]
    assert connected_components(n, a, b).tolist() == _reference_components(n, edges)


# ------------------------------------------------------------------ a corpus with families
@pytest.fixture
def family_corpus(tmp_path):
    """Text files (default settings): a chain A ~ B ~ C whose ends differ, an identical copy of A,
    a near-duplicate pair, a paragraph of a book, and unrelated documents."""
    root = tmp_path / "docs"
    root.mkdir()
    a = _words(1, 300)
    b = _replace_span(a, 0, 90, 2)  # A~B: 70% of the words kept
    c = _replace_span(b, 200, 100, 3)  # B~C; A and C share only the middle third
    (root / "a.txt").write_text(" ".join(a))
    (root / "a_copy.txt").write_text(" ".join(a))
    (root / "b.txt").write_text(" ".join(b))
    (root / "c.txt").write_text(" ".join(c))
    n = _words(4, 250)
    (root / "n.txt").write_text(" ".join(n))
    (root / "n_edit.txt").write_text(" ".join(_replace_span(n, 120, 3, 5)))
    paragraphs = [_words(100 + i, 60) for i in range(25)]
    (root / "book.txt").write_text("\n\n".join(" ".join(p) for p in paragraphs))
    (root / "paragraph.txt").write_text(" ".join(paragraphs[9]))
    for i in range(5):
        (root / f"solo{i}.txt").write_text(" ".join(_words(200 + i, 200)))
    db = tmp_path / "fam.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([root])
    return root, db


def _named(clusters) -> list[list[str]]:
    return sorted(sorted(Path(p).name for p in c["members"]) for c in clusters)


def test_exact_clusters_chain_fold_and_thresholds(family_corpus):
    root, db = family_corpus
    with winnowdb.open(db) as idx:
        res = cluster(idx.reader, min_resemblance=0.4)
    assert _named(res.clusters) == [["a.txt", "a_copy.txt", "b.txt", "c.txt"], ["n.txt", "n_edit.txt"]]
    assert res.documents == 13 and res.representatives == 12  # a_copy folded into a
    chain = next(c for c in res.clusters if c["size"] == 4)
    assert chain["duplicates"] == 1 and chain["representatives"] == 3
    # tightest: the identical copy; loosest: the two ends of the chain, below the threshold
    assert chain["tightest"]["kind"] == "identical" and chain["tightest"]["resemblance"] == 1.0
    loose = chain["loosest"]
    assert {Path(loose["a"]).name, Path(loose["b"]).name} == {"a.txt", "c.txt"}
    assert loose["kind"] == "similar" and loose["resemblance"] < 0.4
    assert chain["cluster"] == min(chain["docs"])
    assert chain["members"][0].endswith("a.txt")


def test_containment_links_paragraph_to_book(family_corpus):
    _, db = family_corpus
    with winnowdb.open(db) as idx:
        plain = _named(cluster(idx.reader, min_resemblance=0.5).clusters)
        with_c = cluster(idx.reader, min_resemblance=0.5, min_containment=0.9)
    assert ["book.txt", "paragraph.txt"] not in plain
    assert ["book.txt", "paragraph.txt"] in _named(with_c.clusters)
    pair = next(c for c in with_c.clusters if any(m.endswith("book.txt") for m in c["members"]))["tightest"]
    contained = pair["containment_a"] if pair["a"].endswith("paragraph.txt") else pair["containment_b"]
    assert contained > 0.95 and pair["resemblance"] < 0.1


def test_super_path_finds_near_duplicates_not_containment(family_corpus):
    _, db = family_corpus
    with winnowdb.open(db) as idx:
        res = cluster(idx.reader, min_resemblance=0.5, method="super")
        named = _named(res.clusters)
        assert ["n.txt", "n_edit.txt"] in named
        assert not any("book.txt" in c for c in named)
        assert res.candidate_pairs >= res.linked_pairs
        with pytest.raises(WinnowError, match="containment"):
            cluster(idx.reader, min_containment=0.8, method="super")


def test_clusters_table_stored_and_replaced(family_corpus):
    root, db = family_corpus
    with winnowdb.open(db) as idx:
        cluster(idx.reader, min_resemblance=0.4)
        rows = idx.sql("SELECT d.path, c.cluster, c.representative, c.cluster_size, c.method, c.min_resemblance "
                       "FROM clusters c JOIN documents d ON d.doc = c.doc ORDER BY d.path")[1]
        ids = dict(idx.store.connection.execute("SELECT path, doc FROM documents").fetchall())
    assert len(rows) == 13  # every document, singletons included
    by_name = {Path(r[0]).name: r for r in rows}
    assert by_name["a_copy.txt"][2] == ids[str(root / "a.txt")]  # folded into a.txt
    assert by_name["a.txt"][2] == ids[str(root / "a.txt")]
    smallest = min(ids[str(root / n)] for n in ("a.txt", "a_copy.txt", "b.txt", "c.txt"))
    assert by_name["c.txt"][1] == by_name["a.txt"][1] == smallest
    assert by_name["c.txt"][3] == 4
    assert by_name["solo0.txt"][1] == ids[str(root / "solo0.txt")] and by_name["solo0.txt"][3] == 1
    assert {r[4] for r in rows} == {"exact"} and {r[5] for r in rows} == {0.4}
    with winnowdb.open(db) as idx:  # a second run replaces the first
        cluster(idx.reader, min_resemblance=0.9)
        (count, runs), = idx.sql("SELECT COUNT(*), COUNT(DISTINCT min_resemblance) FROM clusters")[1]
    assert (count, runs) == (13, 1)


def test_store_needs_a_writable_index(family_corpus):
    _, db = family_corpus
    with winnowdb.open(db, read_only=True) as idx:
        with pytest.raises(WinnowError, match="read-only"):
            cluster(idx.reader)
        res = cluster(idx.reader, store=False)  # computing without storing is fine
        assert not res.stored and res.clusters


def test_common_material_is_ignored(tmp_path):
    # twelve documents share one long passage: common material (df > max_df) cannot cluster them
    common = _words(50, 120)
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(12):
        (root / f"d{i}.txt").write_text(" ".join(common + _words(60 + i, 80)))
    with winnowdb.open(tmp_path / "c.duckdb") as idx:
        idx.add([root])
        assert cluster(idx.reader, min_resemblance=0.3, max_df=10).clusters == []
        assert len(cluster(idx.reader, min_resemblance=0.3, max_df=12).clusters) == 1


def test_identical_copies_are_not_common_material(tmp_path):
    # twenty identical copies (more than max_df) are still one cluster with their near duplicate:
    # document frequency is counted after duplicates are folded
    text = _words(7, 200)
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(20):
        (root / f"copy{i:02d}.txt").write_text(" ".join(text))
    (root / "edited.txt").write_text(" ".join(_replace_span(text, 100, 4, 8)))
    (root / "other.txt").write_text(" ".join(_words(9, 200)))
    with winnowdb.open(tmp_path / "i.duckdb") as idx:
        idx.add([root])
        res = cluster(idx.reader, max_df=10)
    assert len(res.clusters) == 1 and res.clusters[0]["size"] == 21
    assert res.clusters[0]["duplicates"] == 19
    assert res.clusters[0]["loosest"]["kind"] == "similar"


def test_bad_parameters(family_corpus):
    _, db = family_corpus
    with winnowdb.open(db) as idx:
        for kw in ({"min_resemblance": 1.5}, {"min_containment": 0.0}, {"method": "fast"},
                   {"method": "super", "s": 4, "length": 6}):
            with pytest.raises(WinnowError):
                cluster(idx.reader, **kw)


# ------------------------------------------------------------------ CLI
def test_cli_clusters_formats(family_corpus, cli):
    root, db = family_corpus
    res = cli("clusters", "--db", db, "--min-resemblance", "0.4", "--format", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert [c["size"] for c in data] == [4, 2]
    assert set(data[0]) == {"cluster", "size", "submissions", "representatives", "duplicates", "members",
                            "tightest", "loosest"}
    assert data[0]["submissions"] == sorted(data[0]["members"])  # each document is its own submission
    assert set(data[0]["tightest"]) == {"a", "b", "doc_a", "doc_b", "kind", "resemblance", "containment_a",
                                        "containment_b", "shared"}

    res = cli("clusters", "--db", db, "-r", "0.4", "--format", "csv")
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith("cluster,size,doc,path,submission,tightest_a")
    assert len(lines) == 1 + 4 + 2

    res = cli("clusters", "--db", db, "-r", "0.4", "--top", "1")
    assert res.exit_code == 0 and "clusters of similar documents" in res.stdout
    assert "2 clusters of 2+" in " ".join(res.stderr.split())

    res = cli("clusters", "--db", db, "--method", "super", "--min-containment", "0.5")
    assert res.exit_code != 0 and res.output.startswith("error: super shingles cannot detect containment")

    res = cli("clusters", "--db", db, "-r", "1", "--format", "json")
    assert res.exit_code == 0 and [c["size"] for c in json.loads(res.stdout)] == [2]  # only the copy


def test_read_only_commands_work_with_and_without_clusters_table(family_corpus, cli):
    root, db = family_corpus
    assert cli("pairs", "--db", db).exit_code == 0
    assert cli("duplicates", "--db", db).exit_code == 0
    res = cli("sql", "SELECT COUNT(*) AS n FROM clusters", "--db", db)
    assert res.exit_code != 0 and "Traceback" not in res.output  # no table yet: one-line error
    assert cli("clusters", "--db", db).exit_code == 0
    res = cli("sql", "SELECT COUNT(*) AS n FROM clusters", "--db", db, "--format", "json")
    assert res.exit_code == 0 and json.loads(res.stdout) == [{"n": 13}]
    assert cli("pairs", "--db", db).exit_code == 0
    assert cli("query", root / "a.txt", "--db", db).exit_code == 0


def test_removed_document_ids_are_never_reused_nor_left_in_clusters(tmp_path, cli):
    # the copy gets the highest id; removing it and adding an unrelated file must not make the
    # new file inherit the copy's id, nor its place in the stored clusters snapshot
    words = _words(7, 300)
    (tmp_path / "a.txt").write_text(" ".join(words))
    (tmp_path / "m.txt").write_text(" ".join(_words(8, 300)))
    (tmp_path / "z_copy.txt").write_text(" ".join(words))
    db = tmp_path / "ids.duckdb"
    assert cli("add", tmp_path / "a.txt", tmp_path / "m.txt", tmp_path / "z_copy.txt", "--db", db).exit_code == 0
    assert cli("clusters", "--db", db).exit_code == 0

    def rows(sql):
        res = cli("sql", sql, "--db", db, "--format", "json")
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)

    ids = {Path(r["path"]).name: r["doc"] for r in rows("SELECT path, doc FROM documents")}
    assert ids["z_copy.txt"] == max(ids.values())
    assert cli("remove", tmp_path / "z_copy.txt", "--db", db).exit_code == 0
    assert rows("SELECT COUNT(*) AS n FROM clusters WHERE doc NOT IN (SELECT doc FROM documents)") == [{"n": 0}]
    (tmp_path / "q.txt").write_text(" ".join(_words(9, 300)))
    assert cli("add", tmp_path / "q.txt", "--db", db).exit_code == 0
    new_id = rows("SELECT doc FROM documents WHERE path LIKE '%q.txt'")[0]["doc"]
    assert new_id > ids["z_copy.txt"]
    in_clusters = "SELECT COUNT(*) AS n FROM clusters c JOIN documents d USING (doc) WHERE d.path LIKE '%q.txt'"
    assert rows(in_clusters) == [{"n": 0}]
    # a changed file is replaced: a new id, and the old one's snapshot row is gone
    (tmp_path / "a.txt").write_text(" ".join(_words(10, 300)))
    assert cli("add", tmp_path / "a.txt", "--db", db).exit_code == 0
    a_id = rows("SELECT doc FROM documents WHERE path LIKE '%a.txt'")[0]["doc"]
    assert a_id > new_id
    assert rows("SELECT COUNT(*) AS n FROM clusters WHERE doc NOT IN (SELECT doc FROM documents)") == [{"n": 0}]
    res = cli("check", "--db", db)
    assert res.exit_code == 0 and "note:" not in res.stderr

    # an index written by an older winnowdb may hold rows of removed documents: check says so (a
    # note, not a problem), and the next clusters run rewrites the snapshot
    import duckdb

    con = duckdb.connect(str(db))
    con.execute("INSERT INTO clusters SELECT 9999, cluster, 9999, cluster_size, method, min_resemblance, "
                "min_containment, max_df, clustered_at FROM clusters LIMIT 1")
    con.close()
    res = cli("check", "--db", db)
    assert res.exit_code == 0, res.output
    assert "1 row of documents no longer indexed" in " ".join(res.stderr.split())
    assert cli("clusters", "--db", db).exit_code == 0
    res = cli("check", "--db", db)
    assert res.exit_code == 0 and "note:" not in res.stderr


def test_cli_clusters_missing_index(tmp_path, cli):
    res = cli("clusters", "--db", tmp_path / "nothing.duckdb")
    assert res.exit_code != 0 and res.output.startswith("error: no index at")
    assert not (tmp_path / "nothing.duckdb").exists()


# ------------------------------------------------------------------ SQL portability
MINE = re.compile(r"^(duplicate_|sketch_|super_shingle|cluster_).*\.sql$")


def test_sql_files_are_portable_and_documented():
    files = [p for p in sql_dir().iterdir() if MINE.match(p.name)]
    assert len(files) >= 8
    for p in files:
        text = p.read_text()
        assert text.startswith(f"-- {p.name}: "), p.name  # header comment names the file
        body = "\n".join(line.split("--")[0] for line in text.splitlines())
        assert "::" not in body, p.name
        assert not re.search(r"\b(list_|array_agg|string_agg|struct_pack|unnest|qualify)\b", body, re.I), p.name
        assert not re.search(r"\bcount\(\s*\)", body, re.I), p.name
        assert body.count(";") <= 1 and not body.strip().rstrip(";").count(";"), p.name  # one statement


def test_cli_clusters_caption_folder_covers_the_pairs_shown(tmp_path, cli, monkeypatch):
    """The caption names the folder every shown path is relative to: the tightest and loosest
    pairs' paths too, not only the members listed (a member cut by --max-members, or a file of a
    linked submission, used to be shown in full while the caption named a narrower folder)."""
    words = _words(11, 400)
    for sub, name in (("a", "x.txt"), ("b", "y.txt")):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / name).write_text(" ".join(words))
    db = tmp_path / "index.duckdb"
    assert cli("add", tmp_path / "a", tmp_path / "b", "--db", db).exit_code == 0
    monkeypatch.setenv("COLUMNS", "400")  # no wrapping: each path on one line
    res = cli("clusters", "--db", db, "--max-members", "1")
    assert res.exit_code == 0, res.output
    out = res.stdout
    caption = re.search(r"paths under\s+(\S+)", out)
    assert caption, out
    folder = caption.group(1).rstrip("/")
    assert Path(folder).resolve() == tmp_path.resolve()
    assert str(tmp_path / "b") not in out and str(tmp_path / "a") not in out  # all shown below it
    assert "b/y.txt" in out and "a/x.txt" in out


def test_empty_files_and_unchanged_starter_code_do_not_cluster_submissions(tmp_path, cli):
    """Identical files that hold no usable material -- empty files, unchanged copies of the
    starter code -- are duplicates, but they are no evidence of copying between submissions."""
    starter = " ".join(_words(40, 120))
    (tmp_path / "starter").mkdir()
    (tmp_path / "starter" / "Main.txt").write_text(starter)
    root = tmp_path / "class"
    for i, student in enumerate(("ann", "ben", "cat")):
        (root / student).mkdir(parents=True)
        (root / student / "__init__.py").write_text("")
        (root / student / "Main.txt").write_text(starter)
        (root / student / "essay.txt").write_text(" ".join(_words(50 + i, 300)))
    db = tmp_path / "index.duckdb"
    assert cli("add", "--boilerplate", tmp_path / "starter", "--db", db).exit_code == 0
    assert cli("add", "-d", "1", root, "--db", db).exit_code == 0
    res = cli("clusters", "--db", db, "--format", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == []
    # a real copy still clusters its two submissions, and only those
    (root / "cat" / "essay.txt").write_text(" ".join(_words(50, 300)))
    assert cli("add", "-d", "1", root, "--db", db).exit_code == 0
    data = json.loads(cli("clusters", "--db", db, "--format", "json").stdout)
    assert [sorted(Path(s).name for s in c["submissions"]) for c in data] == [["ann", "cat"]]
