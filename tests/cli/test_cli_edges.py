"""Edges of the command line found by trying to break it: names that are not UTF-8, an index kept
inside the folder it indexes, empty SQL, partly matching removals, a mistyped --new label, and
a queried file changed since it was indexed, DuckDB out of memory. The real CLI on real files and a
real index."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import ok, one_line_error, random_words

TEXT = " ".join(random_words(21, 150))


def _indexed(cli, tmp_path, names=("a.txt", "b.txt"), *add_options):
    """(root, db, add result): files holding TEXT in tmp_path/docs, indexed with ``add_options``."""
    root = tmp_path / "docs"
    root.mkdir()
    for name in names:
        (root / name).write_text(TEXT)
    db = tmp_path / "index.duckdb"
    return root, db, ok(cli("add", root, *add_options, "--db", db))


def test_a_file_name_that_is_not_utf8_is_skipped_and_the_rest_indexed(cli, tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    bad = root / os.fsdecode(b"caf\xe9.txt")  # a Latin-1 name, as in old zip archives
    bad.write_text(TEXT)
    (root / "ok.txt").write_text(TEXT)
    db = tmp_path / "index.duckdb"
    r = ok(cli("add", root, "--db", db))
    assert " ".join(r.stdout.split()).startswith("1 added, 0 updated, 0 unchanged, 1 skipped")
    assert "caf\\udce9.txt: file name is not valid UTF-8" in r.stderr
    rows = json.loads(ok(cli("sql", "SELECT path FROM documents", "--db", db, "-f", "json")).stdout)
    assert [os.path.basename(r["path"]) for r in rows] == ["ok.txt"]
    for args in (("query", bad), ("compare", root / "ok.txt", bad), ("query", "--simhash", bad)):
        one_line_error(cli(*args, "--db", db), "file name is not valid UTF-8")


def test_an_index_inside_the_folder_it_indexes_is_not_a_document(cli, tmp_path, monkeypatch):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text(TEXT)
    monkeypatch.chdir(root)
    ok(cli("add", "a.txt"))  # creates ./winnowdb.duckdb inside docs/
    r = ok(cli("add", "."))
    assert "skipped" not in r.stderr, r.stderr
    assert " ".join(r.stdout.split()).startswith("0 added, 0 updated, 1 unchanged, 0 skipped")


def test_empty_sql_is_a_one_line_error(cli, tmp_path):
    root, db, _ = _indexed(cli, tmp_path, ("a.txt",))
    for statement in ("", "   ", ";"):
        one_line_error(cli("sql", statement, "--db", db), "no SQL statement")


def test_remove_names_the_paths_that_matched_nothing(cli, tmp_path):
    root, db, _ = _indexed(cli, tmp_path)
    r = cli("remove", root / "a.txt", root / "nope.txt", "--db", db)
    assert r.exit_code == 1
    assert "removed" in r.stdout and "a.txt" in r.stdout
    assert "nothing in the index matches" in r.stderr and "nope.txt" in r.stderr and "a.txt" not in r.stderr
    rows = json.loads(ok(cli("sql", "SELECT path FROM documents", "--db", db, "-f", "json")).stdout)
    assert [os.path.basename(r["path"]) for r in rows] == ["b.txt"]  # the match was removed


def test_a_mistyped_new_label_is_noted(cli, tmp_path):
    root, db, _ = _indexed(cli, tmp_path, ("a.txt", "b.txt"), "--label", "2026")
    r = ok(cli("pairs", "--new", "2062", "--db", db, "-f", "json"))
    assert json.loads(r.stdout) == []
    assert "no document is labelled '2062' (labels in the index: 2026)" in " ".join(r.stderr.split())
    r = ok(cli("pairs", "--new", "2026", "--db", db, "-f", "json"))
    assert len(json.loads(r.stdout)) == 1 and "note" not in r.stderr


def test_query_notes_a_file_changed_since_it_was_indexed(cli, tmp_path):
    root, db, _ = _indexed(cli, tmp_path)
    assert "changed on disk" not in ok(cli("query", root / "a.txt", "--db", db)).stderr
    (root / "a.txt").write_text("completely different words about astronomy and planets")
    r = ok(cli("query", root / "a.txt", "--db", db))
    assert "a.txt changed on disk since it was indexed" in " ".join(r.stderr.split())


def test_language_aliases_match_detected_files_and_unknown_names_fail(cli, tmp_path):
    code = ("def f(n):\n    total = 0\n    for i in range(n):\n        if i % 3 == 0:\n"
            "            total += i * i\n        else:\n            total -= i\n    return total\n\n"
            "print(f(100), f(200))\n")
    (tmp_path / "a.py").write_text(code)
    for i in range(3):  # one for each alias below
        (tmp_path / f"b{i}.txt").write_text(code)
    db = tmp_path / "index.duckdb"
    ok(cli("add", tmp_path / "a.py", "--db", db))
    for i, alias in enumerate(("py", "Python", "python3")):
        ok(cli("add", "--language", alias, tmp_path / f"b{i}.txt", "--db", db))
    rows = json.loads(ok(cli("sql", "SELECT DISTINCT normalizer FROM documents", "--db", db, "-f", "json")).stdout)
    assert rows == [{"normalizer": "code:python"}]
    pairs = json.loads(ok(cli("pairs", "--db", db, "-f", "json")).stdout)
    assert len(pairs) == 6 and all(p["containment_a"] == 1.0 for p in pairs)  # every two of the four
    one_line_error(cli("add", "--language", "klingon", tmp_path / "b0.txt", "--db", db), "unknown language 'klingon'")


def test_re_adding_a_folder_notes_indexed_files_that_are_gone(cli, tmp_path):
    root, db, r = _indexed(cli, tmp_path)
    assert "no longer exist" not in r.stderr
    (root / "b.txt").rename(root / "c.txt")  # renamed: the old path stays indexed until removed
    r = ok(cli("add", root, "--db", db))
    assert "b.txt is indexed but no longer exists" in " ".join(r.stderr.split())
    ok(cli("remove", root / "b.txt", "--db", db))
    assert "no longer exist" not in ok(cli("add", root, "--db", db)).stderr


def test_query_and_compare_take_the_language_of_an_unindexed_file(cli, tmp_path):
    code = ("def f(n):\n    total = 0\n    for i in range(n):\n        if i % 3 == 0:\n"
            "            total += i * i\n        else:\n            total -= i\n    return total\n\n"
            "print(f(100), f(200))\n")
    (tmp_path / "a.py").write_text(code)
    (tmp_path / "snippet.txt").write_text(code.replace("total", "acc"))  # renamed, in a .txt
    db = tmp_path / "index.duckdb"
    ok(cli("add", tmp_path / "a.py", "--db", db))
    as_text = json.loads(ok(cli("query", tmp_path / "snippet.txt", "--db", db, "-f", "json")).stdout)
    assert as_text == []  # read as text, the renamed code shares nothing with the tokenized file
    hits = json.loads(ok(cli("query", tmp_path / "snippet.txt", "--language", "py", "--db", db, "-f", "json")).stdout)
    assert [h["containment"] for h in hits] == [1.0]
    cmp = json.loads(ok(cli("compare", tmp_path / "snippet.txt", tmp_path / "a.py", "--language", "Python",
                            "--db", db, "-f", "json")).stdout)
    assert cmp["containment_a"] == 1.0 and cmp["passages"]
    one_line_error(cli("query", tmp_path / "snippet.txt", "--language", "klingon", "--db", db), "unknown language")


def test_language_names_resolve_like_extensions_and_text_indexes_refuse_a_language(cli, tmp_path):
    code = "function add(a, b) { const s = a + b; if (s > 10) { return s * 2; } return s - 1; }\n" * 3
    (tmp_path / "a.ts").write_text(code)  # TypeScript files are tokenized as JavaScript
    (tmp_path / "snippet.txt").write_text(code)
    db = tmp_path / "index.duckdb"
    ok(cli("add", tmp_path / "a.ts", "--db", db))
    for name in ("typescript", "ts", "jsx"):
        hits = json.loads(ok(cli("query", tmp_path / "snippet.txt", "--language", name, "--db", db,
                                 "-f", "json")).stdout)
        assert [h["containment"] for h in hits] == [1.0], name
    one_line_error(cli("add", "--language", "text", tmp_path / "snippet.txt", "--db", db), "not a programming language")
    text_db = tmp_path / "text.duckdb"
    ok(cli("add", tmp_path / "a.ts", "--normalizer", "text", "--db", text_db))
    one_line_error(cli("add", "--language", "python", tmp_path / "snippet.txt", "--db", text_db),
                   "--language needs an index that tokenizes code")
    one_line_error(cli("query", tmp_path / "snippet.txt", "--language", "python", "--db", text_db),
                   "--language needs an index that tokenizes code")


def test_import_pairs_refuses_the_index_own_tables(cli, tmp_path):
    import duckdb

    root, db, _ = _indexed(cli, tmp_path)
    out = tmp_path / "pairs-out"
    out.mkdir()
    con = duckdb.connect(str(db), read_only=True)
    con.execute(f"COPY (SELECT * FROM pairs) TO '{out / 'part-0.parquet'}' (FORMAT parquet)")
    con.close()
    for table in ("documents", "Fingerprints", "settings", "pairs", "clusters"):
        one_line_error(cli("import-pairs", out, "--table", table, "--db", db), "one of the index's own tables")
    assert "checks passed" in ok(cli("check", "--db", db)).stdout
    assert "1 pairs" in " ".join(ok(cli("import-pairs", out, "--db", db)).stdout.split())


@pytest.mark.parametrize("batch", [20_000, 1], ids=["one batch", "a batch per document"])
def test_import_reads_back_only_texts_whose_files_are_unchanged(cli, tmp_path, monkeypatch, batch):
    # the files are read back IMPORT_TEXT_DOCUMENTS at a time: the texts and what is missing are
    # the same however many batches
    from winnowdb.store import export

    monkeypatch.setattr(export, "IMPORT_TEXT_DOCUMENTS", batch)
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text(TEXT)
    (root / "b.txt").write_text(TEXT + " and more")
    (root / "c.txt").write_text(TEXT + " and still more")
    db = tmp_path / "index.duckdb"
    ok(cli("add", root, "--db", db))
    ok(cli("export", "--parquet", tmp_path / "ex", "--db", db))  # without texts
    (root / "a.txt").write_text("changed since")
    (root / "b.txt").unlink()
    new = tmp_path / "imported.duckdb"
    r = ok(cli("import", "--parquet", tmp_path / "ex", "--db", new))
    assert "2 of the documents' files changed or are gone" in " ".join(r.stderr.split())
    rows = json.loads(ok(cli("sql", "SELECT d.path, t.text FROM documents d JOIN document_texts t USING (doc) "
                                    "ORDER BY d.path", "--db", new, "-f", "json")).stdout)
    assert [(os.path.basename(r["path"]), r["text"]) for r in rows] == [
        ("a.txt", ""), ("b.txt", ""), ("c.txt", TEXT + " and still more")]



def test_an_export_holding_a_path_twice_is_refused(cli, tmp_path):
    # no key refuses a path twice since schema 5 (add keeps one row per path): import checks it,
    # and leaves no index file behind
    import duckdb

    root = tmp_path / "docs"
    root.mkdir()
    for name in ("a", "b", "c"):
        (root / f"{name}.txt").write_text(f"{name} {TEXT}")
    db, ex = tmp_path / "index.duckdb", tmp_path / "ex"
    ok(cli("add", root, "--db", db))
    ok(cli("export", "--parquet", ex, "--db", db))
    files = sorted((ex / "documents").glob("*.parquet"))
    con = duckdb.connect()
    con.execute("CREATE TABLE doctored AS SELECT * REPLACE (CASE WHEN path LIKE '%b.txt' "
                "THEN replace(path, 'b.txt', 'a.txt') ELSE path END AS path) FROM read_parquet(?)",
                [[str(f) for f in files]])
    for f in files:
        f.unlink()
    con.execute("COPY doctored TO ? (FORMAT parquet)", [str(ex / "documents" / "part-0.parquet")])
    con.close()
    new = tmp_path / "imported.duckdb"
    r = cli("import", "--parquet", ex, "--db", new)
    one_line_error(r, "import failed: the export holds", "a.txt 2 times", "an index holds each path once")
    assert r.exit_code == 2
    assert not new.exists() and not Path(f"{new}.wal").exists()


def test_an_index_imported_without_texts_is_healthy_and_says_passages_cannot_be_shown(cli, tmp_path):
    """`export` without --texts, the originals moved away, `import`: the index holds no texts (an
    empty text each, or with --no-texts no text was read at all). That is deliberate, not damage:
    `check` passes with a note; `compare` keeps its scores and says in one line that the passages
    cannot be shown instead of printing empty panes; the HTML report says so in each pane."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text("An opening line of the first file.\n" + TEXT + "\n")
    (root / "b.txt").write_text("The second file starts differently.\n" + TEXT + "\n")
    db = tmp_path / "index.duckdb"
    ok(cli("add", root, "--db", db))
    before = json.loads(ok(cli("compare", root / "a.txt", root / "b.txt", "--db", db, "-f", "json")).stdout)
    assert before["passages"] and before["passages"][0]["text_a"]
    ok(cli("export", "--parquet", tmp_path / "ex", "--db", db))  # without texts
    root.rename(tmp_path / "moved")
    for name, options in (("gone.duckdb", ()), ("no-texts.duckdb", ("--no-texts",))):
        new = tmp_path / name
        ok(cli("import", "--parquet", tmp_path / "ex", "--db", new, *options))
        r = ok(cli("check", "--db", new))
        assert "checks passed" in r.stdout, (name, r.stdout, r.stderr)
        assert "2 documents have no stored text" in " ".join(r.stderr.split()), (name, r.stderr)
        report = json.loads(ok(cli("check", "--db", new, "-f", "json")).stdout)
        assert report["ok"] and any("no stored text" in n for n in report["notes"])
        r = ok(cli("compare", root / "a.txt", root / "b.txt", "--db", new))
        said = [line for line in r.output.splitlines() if "not stored" in line]
        assert len(said) == 1 and "cannot be shown" in said[0], (name, r.output)
        assert "lines 1-1" not in r.stdout and "┏" not in r.stdout, (name, r.stdout)  # no empty panes
        scores = " ".join(r.stdout.split())
        assert f"{before['shared']} shared fingerprints" in scores and "1 passage" in scores, scores
        after = json.loads(ok(cli("compare", root / "a.txt", root / "b.txt", "--db", new, "-f", "json")).stdout)
        assert {k: after[k] for k in ("shared", "containment_a", "containment_b", "resemblance")} == \
            {k: before[k] for k in ("shared", "containment_a", "containment_b", "resemblance")}
        ok(cli("stats", "--db", new))
        r = ok(cli("report", "--html", tmp_path / f"{name}.html", "--db", new))
        assert "not stored" in r.stderr, (name, r.stderr)
        html = (tmp_path / f"{name}.html").read_text()
        assert html.count("text is not stored in the index") == 2, name  # one line per side


def test_a_refused_language_creates_no_index(cli, tmp_path):
    (tmp_path / "s.txt").write_text(TEXT)
    db = tmp_path / "index.duckdb"
    one_line_error(cli("add", tmp_path / "s.txt", "--language", "python", "--normalizer", "text", "--db", db),
                   "--language needs an index that tokenizes code")
    one_line_error(cli("add", tmp_path / "s.txt", "--language", "output", "--db", db), "not a programming language")
    one_line_error(cli("add", tmp_path / "s.txt", "--language", "klingon", "--db", db), "unknown language")
    assert not db.exists()


def test_query_and_compare_note_an_indexed_file_that_is_gone(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # the tmp path's length (pytest's run number) must not wrap it
    root, db, _ = _indexed(cli, tmp_path)
    (root / "a.txt").unlink()
    for args in (("compare", root / "a.txt", root / "b.txt"), ("query", root / "a.txt")):
        r = ok(cli(*args, "--db", db))
        err = " ".join(r.stderr.split())
        assert "a.txt no longer exists; shown as indexed" in err, err
        assert "changed on disk" not in err and "b.txt" not in err
        assert "b.txt" in r.stdout  # still the indexed text: the copy is found
    data = json.loads(ok(cli("compare", root / "a.txt", root / "b.txt", "--db", db, "-f", "json")).stdout)
    assert [p["text_a"] for p in data["passages"]] == [TEXT]


def test_out_of_memory_says_how_to_give_duckdb_more(cli, tmp_path, monkeypatch):
    root, db, _ = _indexed(cli, tmp_path, ("a.txt", "b.txt", "c.txt"))
    monkeypatch.setenv("WINNOWDB_MEMORY_LIMIT", "2MB")  # less than any query needs
    one_line_error(cli("pairs", "--db", db), "Out of Memory", "give DuckDB more memory with WINNOWDB_MEMORY_LIMIT",
                   "now WINNOWDB_MEMORY_LIMIT=2MB")


def test_a_query_past_the_spill_cap_says_how_to_allow_more(cli, tmp_path, monkeypatch):
    root, db, _ = _indexed(cli, tmp_path, ("a.txt", "b.txt"))
    monkeypatch.setenv("WINNOWDB_MEMORY_LIMIT", "40MB")
    sort = "SELECT COUNT(*) FROM (SELECT i, random() AS r FROM range(3000000) t(i) ORDER BY r)"
    assert "3000000" in ok(cli("sql", sort, "--db", db)).stdout  # it spills within the default cap
    monkeypatch.setenv("WINNOWDB_TEMP_LIMIT", "8MB")  # less than the sort spills
    one_line_error(cli("sql", sort, "--db", db), "Out of Memory",
                   "allow DuckDB more temporary disk space with WINNOWDB_TEMP_LIMIT", "now WINNOWDB_TEMP_LIMIT=8MB",
                   "give DuckDB more memory with WINNOWDB_MEMORY_LIMIT")
    assert not any(Path(str(db) + ".tmp").glob("*"))  # what it spilled is gone
