"""The examples in README.md and docs/*.md, run as tests (as sqlite-utils does with its
documentation), so they cannot drift from what winnowdb does.

Every ``winnowdb`` command of a shell example that runs offline is run with the real command line
in a folder holding what it names (``docs_examples.tour_folder``), the SQL examples run on an index
of the sample corpus made by the README's own set-up commands, the Python examples run as
written, and the README's tables of the index are compared with a real index. What cannot run
here is named in each test (``pip install``, ``spark-submit`` on YARN).
"""
from __future__ import annotations

import csv
import io
import json
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest
from docs_examples import (
    REPO,
    SAMPLE,
    block,
    documented_columns,
    printing_expressions,
    run,
    table_rows,
    tour_folder,
    winnowdb_commands,
)

from winnowdb.store.sqlfiles import split_statements

README = REPO / "README.md"
DOCS = REPO / "docs"
INDEX_SECTION = "The index, in plain DuckDB"


def ok(r: subprocess.CompletedProcess, what) -> subprocess.CompletedProcess:
    assert r.returncode == 0, f"{what}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert "Traceback" not in r.stderr, r.stderr
    return r


@pytest.fixture(scope="module")
def readme_index(tmp_path_factory) -> Path:
    """The index the README's set-up commands make of the sample corpus, in a folder of its own
    (the commands leave out creating the virtual environment and installing: done already)."""
    folder = tmp_path_factory.mktemp("set_up")
    shutil.copytree(SAMPLE, folder / "sample_corpus")
    commands = winnowdb_commands(block(README, "sh", "Set-up").text)
    assert [c[0] for c in commands] == ["add", "add", "pairs"], commands
    results = [ok(run(c, folder), c) for c in commands]
    pairs = results[-1].stdout
    for copy in ("tides_copy.txt", "glaciers_paraphrase.txt", "comets_dup.txt", "Queue2.java"):
        assert copy in pairs, pairs  # the planted copies (sample_corpus/README.md)
    return folder / "winnowdb.duckdb"


def test_readme_set_up_indexes_the_sample_corpus(readme_index):
    con = duckdb.connect(str(readme_index), read_only=True)
    try:
        kinds = dict(con.execute("SELECT kind, COUNT(*) FROM documents GROUP BY kind").fetchall())
    finally:
        con.close()
    assert kinds == {"boilerplate": 1, "document": 21}


def test_readme_sql_examples_run_in_plain_duckdb(readme_index):
    statements = split_statements(block(README, "sql", INDEX_SECTION).text)
    assert len(statements) == 4, statements
    con = duckdb.connect(str(readme_index), read_only=True)  # what `duckdb winnowdb.duckdb` opens
    try:
        results = [con.execute(s).fetchall() for s in statements]
        documents = con.execute("SELECT COUNT(*) FROM documents").fetchall()[0][0]
    finally:
        con.close()
    scored, pairs, passages, per_normalizer = results
    # the 10 likeliest copies, best score first, with the evidence: code pairs carry the text
    # family's containment, text pairs none
    assert 0 < len(scored) <= 10 and [p[2] for p in scored] == sorted((p[2] for p in scored), reverse=True)
    assert scored[0][2] == 1.0 and all(0 <= p[2] <= 1 for p in scored)
    assert all((p[4] is None) == p[0].endswith(".txt") for p in scored)
    # the 10 most contained pairs, most contained first; the byte-identical copy contains 100%
    assert 0 < len(pairs) <= 10
    assert [p[3] for p in pairs] == sorted((p[3] for p in pairs), reverse=True)
    # (ties at 100% come in any order: the byte-identical essay, or the renamed stack in code)
    assert pairs[0][3] == 1.0 and {Path(pairs[0][0]).name, Path(pairs[0][1]).name} & {"comets.txt", "tides.txt",
                                                                                        "stack.py"}
    # the most widespread fingerprint: at least two places, each a k-gram index of its document
    assert len(passages) >= 2 and all(0 <= pos < units for _, pos, units in passages)
    # fingerprints per document, by normalizer: every document counted once
    assert sum(n for _, n, _ in per_normalizer) == documents
    assert {"prose", "code:java", "code:python", "code:c"} <= {name for name, _, _ in per_normalizer}
    # `winnowdb sql` runs them too (without the leading comment line, which the command line
    # would take for an option)
    query = "\n".join(line for line in statements[0].splitlines() if not line.startswith("--"))
    r = ok(run(["sql", query, "--db", readme_index, "-f", "json"], REPO), "winnowdb sql")
    assert [(row["a"], row["b"]) for row in json.loads(r.stdout)] == [p[:2] for p in scored]


def test_readme_tables_of_the_index_match_a_real_index(readme_index):
    text = README.read_text(encoding="utf-8")
    con = duckdb.connect(str(readme_index), read_only=True)
    try:
        columns: dict[str, list[str]] = {}
        for table, column in con.execute("SELECT table_name, column_name FROM information_schema.columns "
                                         "ORDER BY table_name, ordinal_position").fetchall():
            columns.setdefault(table, []).append(column)
        settings = {k for (k,) in con.execute("SELECT key FROM settings").fetchall()}
        meta = {k for (k,) in con.execute("SELECT key FROM meta").fetchall()}
    finally:
        con.close()
    documented = {}
    for name, _, cell in table_rows(text, "table"):
        names = documented_columns(cell)
        if names[0].startswith("@"):
            names = documented[names[0][1:]] + names[1:]
        documented[name.strip("`")] = names
    for table, names in documented.items():
        assert columns.get(table) == names, f"README's {table}: {names}, the index: {columns.get(table)}"
    for name, cell in table_rows(text, "view"):
        view = name.strip("`")
        assert view in columns, f"README's view {view} is not in the index"
        listed = re.match(r"(?:distinct )?`\(?([^`)]*)\)?`", cell)
        if listed:
            assert columns[view] == [c.strip() for c in listed.group(1).split(",")], (view, columns[view])
    # the keys of settings and meta the README names
    settings_cell = next(cell for name, _, cell in table_rows(text, "table") if name == "`settings`")
    described = set(re.findall(r"\b[a-z_]+(?:_version|_at|_by|_k|_w|_m)\b|\b[kw]\b|\bnormalizer\b|\bselection\b"
                               r"|\btext_normalizer\b", settings_cell))
    assert settings <= described, f"settings keys the README does not name: {settings - described}"
    meta_cell = next(cell for name, _, cell in table_rows(text, "table") if name == "`meta`")
    assert meta <= set(re.findall(r"[a-z_]+", meta_cell)), meta


def test_readme_tour_runs(tmp_path):
    folder = tour_folder(tmp_path / "tour")
    ok(run(["add", "old/"], folder), "last year's files, for `remove old/`")
    commands = winnowdb_commands(block(README, "sh", "A tour").text)
    assert len(commands) == 17, commands
    out = {}
    for args in commands:
        out[" ".join(args)] = ok(run(args, folder), args).stdout
    assert out["add corpus/"].startswith("21 added")
    assert "tides_copy.txt" in out["query essay.txt"] and "queue.java" in out["query snippet.txt --language java"]
    assert "comets_dup.txt" in out["pairs --top 20"]
    likely = list(csv.DictReader(io.StringIO(out["pairs --top 0 --min-score 0.5 -f csv"])))
    assert likely and all(float(r["score"]) >= 0.5 for r in likely)
    assert "glaciers" in out["compare a.txt b.txt"] or "a.txt" in out["compare a.txt b.txt"]
    assert (folder / "report.html").read_text(encoding="utf-8").lower().startswith("<!doctype html>")
    assert out["check"].startswith("ok: ")
    assert "comets" in out["near-dups --hamming 3"]
    assert (folder / "out" / "_winnowdb.json").is_file()
    r = ok(run(["sql", "SELECT path FROM documents", "-f", "csv"], folder), "after remove")
    assert "bees_2025.txt" not in r.stdout and "comets.txt" in r.stdout  # old/ was removed


def test_readme_classes_and_past_years(tmp_path):
    # The commands of the README's "Classes and past years": this year's submissions (one folder
    # each) and last year's files; `pairs --new 2026` finds the pairs with this year's work on a
    # side, between submissions named by their folders, and never old against old.
    paragraph = README.read_text(encoding="utf-8").split("**Classes and past years.**")[1].split("\n\n")[0]
    commands = [shlex.split(c) for c in re.findall(r"`((?:winnowdb )?(?:add|pairs) [^`]*)`", paragraph)]
    commands = [c[1:] if c[0] == "winnowdb" else c for c in commands]
    assert [c[0] for c in commands] == ["add", "add", "pairs"], commands
    essays = SAMPLE / "essays"
    for name, source in [("submissions/alice/essay.txt", "tides.txt"),
                         ("submissions/alice/notes.txt", "coral_reefs.txt"),
                         ("submissions/bob/essay.txt", "tides_copy.txt"),
                         ("submissions/bob/glaciers.txt", "glaciers.txt"),
                         ("archive/2025/carol.txt", "comets.txt"), ("archive/2025/dave.txt", "comets_dup.txt"),
                         ("archive/2025/erin.txt", "glaciers_paraphrase.txt")]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(essays / source, tmp_path / name)
    for c in commands[:2]:
        ok(run(c, tmp_path), c)
    r = ok(run([*commands[2], "-f", "json"], tmp_path), commands[2])
    found = {(Path(p["a"]).relative_to(tmp_path).as_posix(), Path(p["b"]).relative_to(tmp_path).as_posix())
             for p in json.loads(r.stdout)}
    assert found == {("submissions/alice", "submissions/bob"), ("archive/2025/erin.txt", "submissions/bob")}
    every = ok(run(["pairs", "-f", "csv"], tmp_path), "pairs").stdout
    assert "carol.txt" in every and "dave.txt" in every  # old against old: there, but not new


def test_readme_python_api_runs(tmp_path):
    folder = tour_folder(tmp_path / "api")
    code = block(README, "python", "Python API").text + (
        "    print('passages', len(cmp.passages), 'score', cmp.score)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any(line.startswith(str(folder / "corpus" / "essays" / "tides_copy.txt")) for line in lines), lines
    assert any("comets.txt" in line and "comets_dup.txt" in line for line in lines), lines
    passages = int(lines[-1].split()[1])
    assert passages >= 1, lines  # a.txt and b.txt: the glacier essay and its paraphrase


def test_simhash_doc_examples_run(tmp_path):
    folder = tour_folder(tmp_path / "simhash")
    ok(run(["add", "corpus/"], folder), "the index the examples read")
    doc = DOCS / "simhash.md"
    commands = [c for b in (0, 1) for c in winnowdb_commands(block(doc, "console", index=b).text, prompt="$ ")]
    assert [c[0] for c in commands] == ["near-dups", "near-dups", "query", "query", "sql", "sql"], commands
    out = [ok(run(c, folder), c).stdout for c in commands]
    assert "comets_dup.txt" in out[0] and "comets_dup.txt" in out[1]
    assert "tides_copy.txt" in out[2] and "tides_copy.txt" in out[3]  # essay.txt is a copy of it
    assert "comets_dup.txt" in out[5]  # the XOR distance query finds the identical copy
    code = printing_expressions(block(doc, "python").text)
    r = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    printed = r.stdout.splitlines()
    assert len(printed) == 3 and "comets_dup.txt" in printed[0] and "tides" in printed[1], printed


def test_clusters_doc_examples_run(tmp_path):
    # docs/clusters.md's commands (indented blocks), on an index made the way it gives for
    # Broder's shingling, of the essays and its two roses: "a rose is a rose is a rose" has the 3
    # 4-word shingles of "a rose is a rose is a rose is a rose", so they are fingerprint
    # duplicates; the fields its comments list are the ones printed.
    doc = (DOCS / "clusters.md").read_text(encoding="utf-8")
    indented = "".join(textwrap.dedent(b) for b in re.findall(r"(?:^    .*\n)+", doc, flags=re.M))
    lines = re.findall(r"^winnowdb .*(?:\n .*)*", indented, flags=re.M)  # with continuation lines
    commands = [shlex.split(line, comments=True)[1:] for line in lines]
    assert [c[0] for c in commands] == ["add"] + ["duplicates"] * 4 + ["query"] + ["clusters"] * 4 + ["sql"], commands
    folder = tour_folder(tmp_path / "clusters")
    (folder / "corpus" / "roses").mkdir()
    (folder / "corpus" / "roses" / "rose1.txt").write_text("a rose is a rose is a rose\n")
    (folder / "corpus" / "roses" / "rose2.txt").write_text("a rose is a rose is a rose is a rose\n")
    out = [ok(run(c, folder), c).stdout for c in commands]
    documented = {line.split("#")[0].strip(): line.split("#", 1)[1] for line in lines if "#" in line}
    groups = json.loads(out[3])
    keys = re.search(r"\[\{([^}]*)\}", documented["winnowdb duplicates --format json"]).group(1)
    assert all(list(g) == [k.strip() for k in keys.split(",")] for g in groups), groups
    roses = [g for g in groups if g["representative"].endswith("rose1.txt")]
    assert [(g["level"], g["fingerprints"], len(g["members"])) for g in roses] == [("fingerprint", 3, 2)]
    header = documented["winnowdb duplicates --format csv"].split(":", 1)[1]
    assert out[4].splitlines()[0] == ",".join(k.strip() for k in header.split(","))
    sketch = json.loads(out[5])
    example = json.loads(doc.split("winnowdb query essay.txt --sketch 100 --format json\n    # ")[1]
                         .split("\n")[0].replace("...", "null").replace("}, null]", "}]"))
    assert all(list(hit) == list(example[0]) for hit in sketch) and sketch[0]["path"].endswith("tides_copy.txt")
    assert sketch[0]["sketch_size"] == 100 and sketch[0]["resemblance"] == 1.0  # essay.txt is that copy
    clusters = [{Path(m).name for m in c["members"]} for c in json.loads(out[9])]
    assert {"comets.txt", "comets_dup.txt"} in clusters and {"rose1.txt", "rose2.txt"} in clusters
    assert "roses/rose2.txt" in out[10] and "comets_dup.txt" in out[10]  # the clusters table, in SQL


@pytest.mark.slow
def test_spark_doc_examples_run(tmp_path):
    # docs/spark.md: export, the Spark pairs job (local Spark, as the Spark tests run it), the
    # import and the query of its result; the export layout it describes; the read_parquet
    # example. Not run: `pip install` (done) and spark-submit on a YARN cluster.
    pytest.importorskip("pyspark", reason="pip install -e '.[test,spark]' installs pyspark")
    from winnowdb.errors import WinnowError
    from winnowdb.spark.session import require_spark

    try:
        require_spark()
    except WinnowError as exc:
        pytest.skip(str(exc))  # as the Spark tests: no Java runtime here
    doc = DOCS / "spark.md"
    folder = tour_folder(tmp_path / "spark")
    ok(run(["add", "corpus/", "--db", "corpus.duckdb"], folder), "the index to export")
    commands = winnowdb_commands(block(doc, "console", index=0).text, prompt="$ ")
    assert [c[:2] for c in commands] == [["export", "--parquet"], ["spark", "pairs"], ["import-pairs", "pairs.parquet"],
                                         ["sql", "SELECT * FROM spark_pairs LIMIT 20"]], commands
    out = [ok(run(c, folder, timeout=900), c).stdout for c in commands]
    assert "comets_dup.txt" in out[-1]
    export = folder / "corpus.parquet"
    layout = block(doc, "").text
    for pattern in re.findall(r"^DIR/(\S+)", layout, flags=re.M):
        if pattern in ("document_texts/*.parquet", "<table>/*.parquet"):
            continue  # only with --texts; "any further table"
        assert list(export.glob(pattern.replace("bucket=B", "bucket=*"))), pattern
    assert not (export / "document_texts").exists()
    sql = block(doc, "sql").text.replace("DIR", str(export))
    rows = duckdb.sql(sql.rstrip().rstrip(";")).fetchall()
    assert len(rows) == duckdb.connect(str(folder / "corpus.duckdb"), read_only=True).execute(
        "SELECT COUNT(*) FROM fingerprints").fetchall()[0][0]
    entry = block(doc, "console", index=1).text.splitlines()[0]
    code = re.search(r"python -c '([^']*)'", entry).group(1)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and Path(r.stdout.strip()).is_file(), r.stderr
