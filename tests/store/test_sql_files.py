"""The SQL files in sql/: documented, loaded through winnowdb.sqlfiles, portable, and runnable.

The queries must stay portable SQL (they also run on Spark, rewritten by ``sqlfiles.for_spark``),
so a small lint rejects DuckDB-only syntax.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from winnowdb.store import sqlfiles

REPO_SQL = Path(__file__).resolve().parents[2] / "sql"
SQL_FILES = sorted(REPO_SQL.glob("*.sql"))
NAMES = [p.stem for p in SQL_FILES]

#: the queries the product runs; each must exist
CORE = ["create_tables", "create_views", "pairs", "query_found", "query_hits", "passage_matches", "countable_hashes",
        "index_summary", "window_density", "common_fingerprints"]

#: DuckDB-only syntax (pattern, what it is); searched in the SQL with comments and strings removed
DUCKDB_ONLY = [
    (r"::", "`::` cast (use CAST(x AS type))"),
    (r"\bcount\s*\(\s*\)", "count() without an argument (use COUNT(*))"),
    (r"\blist_\w+\s*\(", "list function"),
    (r"\blist\s*\(", "list() aggregate"),
    (r"\barray_\w+\s*\(", "array function"),
    (r"\b(?:unnest|flatten|struct_pack|list_value|string_split|regexp_split_to_array)\s*\(",
     "list/struct function"),
    (r"\[\s*[^\]\s]", "list literal or list indexing"),
    (r"\{\s*'", "struct literal"),
    (r"->|=>", "lambda or named-argument arrow"),
    (r"\bcolumns\s*\(", "COLUMNS(...) expression"),
    (r"\bexclude\s*\(", "SELECT * EXCLUDE"),
    (r"\b(?:group|order)\s+by\s+all\b", "GROUP/ORDER BY ALL"),
    (r"\barg_(?:min|max)\s*\(", "arg_min/arg_max (use a window or MIN_BY/MAX_BY portably)"),
    (r"\bqualify\b", "QUALIFY"),
    (r"\bilike\b", "ILIKE"),
    (r"\bfrom\s+'", "FROM 'file' (read a file)"),
    (r"\bread_(?:csv|parquet|json)\w*\s*\(", "file reader function"),
    (r"\bpositional\s+join\b|\basof\s+join\b", "POSITIONAL/ASOF JOIN"),
]


def code_of(sql: str) -> str:
    """The SQL without comments and string literals (so prose and text are not linted)."""
    sql = re.sub(r"/\*.*?\*/", " ", sql, flags=re.S)
    sql = re.sub(r"--[^\n]*", " ", sql)
    return re.sub(r"'(?:[^']|'')*'", "''", sql)


def lint(sql: str) -> list[str]:
    code = code_of(sql)
    return [what for pattern, what in DUCKDB_ONLY if re.search(pattern, code, flags=re.I)]


def test_sql_folder_is_the_one_winnowdb_loads():
    assert sqlfiles.sql_dir().resolve() == REPO_SQL.resolve()
    assert set(CORE) <= set(NAMES)


@pytest.mark.parametrize("path", SQL_FILES, ids=NAMES)
def test_header_comment(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines, f"{path.name} is empty"
    assert lines[0].startswith(f"-- {path.name}:"), f"{path.name}: first line must be '-- {path.name}: <what it does>'"
    assert len(lines[0].split(":", 1)[1].strip()) >= 10, "say what the query is for"
    # every $parameter the query takes is documented in the header
    header = "\n".join(line for line in lines if line.lstrip().startswith("--"))
    for name in sqlfiles.parameters(path.read_text(encoding="utf-8")):
        assert f"${name}" in header, f"{path.name}: parameter ${name} not documented in the header"


@pytest.mark.parametrize("path", SQL_FILES, ids=NAMES)
def test_loaded_through_sqlfiles(path):
    assert sqlfiles.load(path.stem) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", SQL_FILES, ids=NAMES)
def test_no_duckdb_only_syntax(path):
    """Portable SQL, unless the file's header says it runs on DuckDB only, and why."""
    if sqlfiles.duckdb_only(path.stem):
        assert len(next(line for line in path.read_text(encoding="utf-8").splitlines()
                        if line.startswith(sqlfiles.DUCKDB_ONLY)).split(":", 1)[1].strip()) >= 10, "say why"
        return
    assert lint(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", SQL_FILES, ids=NAMES)
def test_spark_form_has_no_dollar_parameters(path):
    spark = sqlfiles.for_spark(code_of(path.read_text(encoding="utf-8")))
    assert "$" not in spark


@pytest.mark.parametrize("bad,what", [
    ("SELECT x::BIGINT FROM t", "`::` cast"),
    ("SELECT count() FROM t", "count() without"),
    ("SELECT COUNT( ) FROM t", "count() without"),
    ("SELECT list(x) FROM t", "list() aggregate"),
    ("SELECT list_sort(xs) FROM t", "list function"),
    ("SELECT [1, 2, 3]", "list literal"),
    ("SELECT * EXCLUDE (a) FROM t", "EXCLUDE"),
    ("SELECT a, COUNT(*) FROM t GROUP BY ALL", "GROUP/ORDER BY ALL"),
])
def test_lint_catches_duckdb_only_syntax(bad, what):
    assert any(what in found for found in lint(bad)), lint(bad)


def test_lint_ignores_comments_and_strings():
    assert lint("-- list(x) and x::INT in a comment\nSELECT 'a::b [x]' AS s, COUNT(*) FROM t") == []


FINGERPRINT_RELATIONS = ("query_fingerprints", "left_fingerprints", "right_fingerprints", "side_hashes",
                         "counted_hashes")
VALUES = {"max_df": 10, "common_floor": 10, "min_shared": 1, "new_label": None, "min_score": None, "exclude": None,
          "limit_rows": 5,
          "k": 12, "code_k": 12, "top": None}


def run_core(con, name: str, **values) -> list[tuple]:
    """One of the CORE queries, run as the product runs it (its parameters bound by name;
    query_hits after query_found, whose rows it reads; the query has no documents of its own)."""
    values = {**VALUES, **values}

    def run(file: str):
        sql = sqlfiles.load(file)
        return con.execute(sql, {p: values[p] for p in sqlfiles.parameters(sql)})

    if name not in ("query_found", "query_hits"):
        return run(name).fetchall()
    import numpy as np

    con.register("query_docs", {"doc": np.empty(0, dtype=np.int32)})  # the query is not indexed
    try:
        if name == "query_found":
            return run(name).fetchall()
        con.register("query_found", run("query_found").fetchnumpy())
        return run(name).fetchall()
    finally:
        for relation in ("query_docs", "query_found"):
            con.unregister(relation)


def register_fingerprints(con, rows=None) -> None:
    """The relations the CORE queries read besides the index: fingerprint rows (hash, doc, pos,
    start_offset, end_offset) of one side, or none."""
    import pyarrow as pa

    columns = list(zip(*rows)) if rows else [[]] * 5
    table = pa.table({name: pa.array(col, typ) for name, col, typ in zip(
        ("hash", "doc", "pos", "start_offset", "end_offset"), columns,
        (pa.int64(), pa.int32(), pa.int32(), pa.int32(), pa.int32()))})
    for rel in FINGERPRINT_RELATIONS:
        con.register(rel, table)


def test_core_queries_on_a_fresh_index_find_nothing(tmp_path):
    # every query the product runs is valid SQL on a freshly created (empty) index, and finds
    # nothing there: no pairs, hits, matches or common fingerprints; a summary of zeros
    import winnowdb

    with winnowdb.open(tmp_path / "empty.duckdb") as idx:
        con = idx.store.connection
        register_fingerprints(con)
        for name in CORE:
            if name in ("create_tables", "create_views"):
                continue
            expected = [(0,) * 9] if name == "index_summary" else []
            assert run_core(con, name) == expected, name
        # the tables and views the docs promise
        names = {r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
        assert {"settings", "documents", "document_texts", "fingerprints", "document_fingerprints",
                "boilerplate_hashes", "fingerprint_df", "default_max_df", "pairs"} <= names


def test_core_queries_on_three_documents_agree_with_the_tables(tmp_path):
    # Three files, each its own submission: b copies the first half of a, c shares nothing with
    # them. Each query's result is checked against the stored fingerprint rows, counted here in
    # Python: shared = the distinct hashes two documents have in common, and so on.
    import random

    import winnowdb

    rng = random.Random(4)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
             for _ in range(900)]
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text(" ".join(words[:300]))
    (folder / "b.txt").write_text(" ".join(words[:150] + words[300:450]))
    (folder / "c.txt").write_text(" ".join(words[600:900]))
    with winnowdb.open(tmp_path / "three.duckdb") as idx:
        assert idx.add([folder]).added == 3
        con = idx.store.connection
        doc = {p.rsplit("/", 1)[1]: d for d, p in con.execute("SELECT doc, path FROM documents").fetchall()}
        # a side's rows with spans (the index stores none; Reader.sides fingerprints texts again)
        rows = con.execute("SELECT hash, doc, pos, 3 * pos, 3 * pos + 20 FROM fingerprints").fetchall()
        hashes = {name: {r[0] for r in rows if r[1] == d} for name, d in doc.items()}
        shared = hashes["a.txt"] & hashes["b.txt"]
        assert shared and not hashes["c.txt"] & (hashes["a.txt"] | hashes["b.txt"])
        register_fingerprints(con, [r for r in rows if r[1] == doc["a.txt"]])  # a is the query

        pairs = run_core(con, "pairs")
        assert [(Path(a).name, Path(b).name, n, fa, fb) for a, b, n, fa, fb, *_ in pairs] == [
            ("a.txt", "b.txt", len(shared), len(hashes["a.txt"]), len(hashes["b.txt"]))]
        assert pairs[0][7] == pytest.approx(len(shared) / len(hashes["a.txt"] | hashes["b.txt"]))
        hits = {Path(submission).name: (n, size) for _, submission, n, size in run_core(con, "query_hits")}
        assert hits == {"a.txt": (len(hashes["a.txt"]),) * 2, "b.txt": (len(shared), len(hashes["a.txt"]))}
        assert {h for (h,) in run_core(con, "countable_hashes")} == hashes["a.txt"]
        # a against itself: every stored occurrence meets every occurrence of the same hash
        matches = run_core(con, "passage_matches")
        assert len(matches) == sum(sum(1 for s in rows if s[0] == r[0] and s[1] == r[1]) for r in rows
                                   if r[1] == doc["a.txt"])
        assert all(m[0] == m[4] == doc["a.txt"] and m[8] in hashes["a.txt"] for m in matches)
        summary = run_core(con, "index_summary")[0]
        assert summary[:4] == (3, 0, 3, len(rows))
        assert summary[6:] == (len(hashes["a.txt"] | hashes["b.txt"] | hashes["c.txt"]), len(shared), 0)
        units = dict(con.execute("SELECT normalizer, SUM(units - $k + 1) FROM documents GROUP BY normalizer",
                                 {"k": VALUES["k"]}).fetchall())
        assert run_core(con, "window_density") == [
            (family, 3, pytest.approx(len(rows) / n)) for family, n in units.items()]
        occurrences = {h: sum(1 for r in rows if r[0] == h) for h in shared}
        common = run_core(con, "common_fingerprints")
        assert [(h, df, n) for h, df, n, *_ in common] == sorted(
            [(h, 2, n) for h, n in occurrences.items()], key=lambda x: (-x[2], x[0]))[:VALUES["limit_rows"]]
        chars = dict(con.execute("SELECT doc, chars FROM documents").fetchall())
        shortest = min((chars[d], d) for d in (doc["a.txt"], doc["b.txt"]))[1]
        for h, _, _, example, pos in common:  # the first occurrence in the shorter document
            assert example == shortest and chars[doc["a.txt"]] != chars[doc["b.txt"]]
            assert pos == min(r[2] for r in rows if r[0] == h and r[1] == example)


def test_views_are_listed_once_and_a_stale_definition_is_not_used(tmp_path, cli):
    """An index written by this version stores this version's views: `winnowdb sql` lists each
    once. An index whose stored views are another version's (a different digest) is read through
    this version's views, created as temporary views of the read-only connection."""
    import json

    import duckdb
    from conftest import ok, random_words

    (tmp_path / "a.txt").write_text(" ".join(random_words(3, 200)))
    (tmp_path / "b.txt").write_text(" ".join(random_words(3, 200)))
    db = tmp_path / "index.duckdb"
    ok(cli("add", tmp_path / "a.txt", tmp_path / "b.txt", "--db", db))
    names = [r["name"] for r in json.loads(ok(cli("sql", "SHOW TABLES", "--db", db, "-f", "json")).stdout)]
    assert len(names) == len(set(names)) and "pairs" in names and "fingerprint_df" in names

    con = duckdb.connect(str(db))  # an older version rewrote a view (and knows nothing of the digest)
    con.execute("CREATE OR REPLACE VIEW pairs AS SELECT 'stale' AS a")
    con.close()
    rows = json.loads(ok(cli("sql", "SELECT a FROM pairs", "--db", db, "-f", "json")).stdout)
    assert rows and rows[0]["a"].endswith("a.txt")  # this version's view, not the stored one
    con = duckdb.connect(str(db))  # ... or the digest is another version's
    con.execute("UPDATE settings SET value = 'older' WHERE key = 'views_digest'")
    con.close()
    rows = json.loads(ok(cli("sql", "SELECT a FROM pairs", "--db", db, "-f", "json")).stdout)
    assert rows and rows[0]["a"].endswith("a.txt")
    # ... or another version stored its views with a digest that vouches for them
    import hashlib

    con = duckdb.connect(str(db))
    con.execute("CREATE OR REPLACE VIEW pairs AS SELECT 'other' AS a")
    stored = con.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal AND NOT temporary "
                         "AND schema_name = 'main' AND view_name IN ('boilerplate_hashes', 'default_max_df', "
                         "'document_fingerprints', 'fingerprint_df', 'pairs') ORDER BY view_name").fetchall()
    other = hashlib.blake2b(repr(stored).encode(), digest_size=16).hexdigest()  # right for its views
    con.execute("UPDATE settings SET value = ? WHERE key = 'views_digest'", [other])
    con.close()
    rows = json.loads(ok(cli("sql", "SELECT a FROM pairs", "--db", db, "-f", "json")).stdout)
    assert rows and rows[0]["a"].endswith("a.txt")


# --------------------------------------------------------------------------- the one SQL lexer
# parameters, bind, with_limit, as_view, for_spark, temporary_views and spark.sql.statements all
# read SQL through sqlfiles' lexer: a $name, ';' or CREATE VIEW in a string literal, a quoted
# identifier or a comment (-- to the line end, /* */ nested) is not code.


@pytest.mark.parametrize("sql,names", [
    ("SELECT 1 -- $foo", set()),                                      # in a trailing comment
    ("SELECT $a -- and $b\nFROM t WHERE x = $c", {"a", "c"}),
    ("-- $whole_line\nSELECT $a", {"a"}),
    ("SELECT '$lit' AS s, 'it''s $lit2' AS t, $a", {"a"}),              # in string literals
    ("SELECT /* $block */ $a", {"a"}),                                # in a block comment
    ("SELECT /* outer /* $nested */ $still_comment */ $a", {"a"}),    # nested, as DuckDB nests them
    ("SELECT /* a\n -- $x\n $y */ $a", {"a"}),                        # over several lines
    ('SELECT "$quoted" FROM t WHERE `$spark` = $a', {"a"}),           # in quoted identifiers
    ("SELECT $$ $dollar $$ AS s, $tag$ $x $tag$ AS t, $a", {"a"}),     # dollar-quoted strings
    ("SELECT a$b, $1 FROM t WHERE c = $a_2", {"a_2"}),                # a$b is a name; $1 positional
    ("SELECT '--' || $a || '/*' AS s", {"a"}),                        # comment markers in a string
    ("SELECT 1 -- ' unbalanced quote in a comment\n, $a", {"a"}),
    ("SELECT 'unterminated $x", set()),
])
def test_parameters_are_only_those_in_code(sql, names):
    assert sqlfiles.parameters(sql) == names


def test_bind_ignores_a_parameter_named_in_a_trailing_comment():
    import duckdb

    sql = "SELECT 1 AS one -- $foo"
    assert sqlfiles.bind(sql, {}) == {}
    assert duckdb.connect().execute(sql, sqlfiles.bind(sql, {"foo": 1})).fetchall() == [(1,)]
    sql = "SELECT $a AS a, '$b' AS b /* $c */ -- $d"
    assert sqlfiles.bind(sql, {"a": 1, "b": 2, "c": 3, "d": 4}) == {"a": 1}
    assert duckdb.connect().execute(sql, sqlfiles.bind(sql, {"a": 1, "b": 2})).fetchall() == [(1, "$b")]
    with pytest.raises(KeyError, match="'a'"):
        sqlfiles.bind(sql, {"b": 2})


def test_the_lexer_loses_nothing():
    for path in SQL_FILES:
        sql = path.read_text(encoding="utf-8")
        assert "".join(text for _, text in sqlfiles.tokens(sql)) == sql
    sql = "SELECT 'a;b' -- c\n/* d /* e */ */ \"f\" $g;"
    assert [kind for kind, _ in sqlfiles.tokens(sql)] == [
        "code", "string", "code", "comment", "code", "comment", "code", "identifier", "code", "parameter", "semicolon"]


@pytest.mark.parametrize("sql,expected", [
    ("SELECT x FROM t ORDER BY x -- a note; with $p\n", "SELECT x FROM t ORDER BY x\nLIMIT 3"),
    ("SELECT x FROM t ORDER BY x;  -- the end\n", "SELECT x FROM t ORDER BY x\nLIMIT 3"),
    ("SELECT x FROM t ORDER BY x /* last */ ;\n", "SELECT x FROM t ORDER BY x\nLIMIT 3"),
    ("-- header\nSELECT ';' AS x FROM t ORDER BY x;", "SELECT ';' AS x FROM t ORDER BY x\nLIMIT 3"),
])
def test_with_limit_drops_comments_and_the_final_semicolon(sql, expected):
    import duckdb

    assert sqlfiles.with_limit(sql, 3) == expected
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT range AS x FROM range(10)")
    assert len(con.execute(sqlfiles.with_limit(sql, 3)).fetchall()) == 3


def test_as_view_substitutes_parameters_in_code_only(monkeypatch):
    import duckdb

    sql = ("-- v.sql: a view body\n"
           "SELECT $a AS a,  -- $b is not used here; nor is $c\n"
           "       '$a' AS literal /* $a */\n"
           "FROM range(1)\n")
    monkeypatch.setattr(sqlfiles, "load", lambda name: sql)
    body = sqlfiles.as_view("v", {"a": "41 + 1"})
    assert body == "SELECT (41 + 1) AS a,\n       '$a' AS literal\nFROM range(1)\n"
    con = duckdb.connect()
    con.execute(f"CREATE VIEW v AS {body}")
    assert con.execute("SELECT * FROM v").fetchall() == [(42, "$a")]


def test_as_view_keeps_the_pairs_view_free_of_comments():
    body = sqlfiles.as_view("pairs", {"max_df": "NULL", "min_shared": "1", "new_label": "NULL", "min_score": "NULL"})
    assert "--" not in body and "/*" not in body and "$" not in body


def test_temporary_views_rewrites_code_only():
    sql = ("CREATE OR REPLACE VIEW a AS SELECT 'CREATE VIEW x' AS s; -- CREATE VIEW in a comment\n"
           "create view b as select \"CREATE VIEW\" from t")
    assert sqlfiles.temporary_views(sql) == (
        "CREATE OR REPLACE TEMP VIEW a AS SELECT 'CREATE VIEW x' AS s; -- CREATE VIEW in a comment\n"
        "CREATE TEMP VIEW b as select \"CREATE VIEW\" from t")


def test_for_spark_drops_block_comments_and_rewrites_around_them():
    sql = "SELECT $a /* $b; 'quote */ AS x, ';' AS y FROM t WHERE z = /* c */ $c -- $d\n"
    assert sqlfiles.for_spark(sql) == "SELECT :a  AS x, ';' AS y FROM t WHERE z =  :c\n"


@pytest.mark.parametrize("sql,statements", [
    ("SELECT ';' AS x; SELECT 2;\n", ["SELECT ';' AS x", "SELECT 2"]),
    ("SELECT 1 -- a comment; not a statement\n; SELECT 2", ["SELECT 1", "SELECT 2"]),
    ("/* ; */ SELECT 1; /* ; */", ["SELECT 1"]),
    ('SELECT "a;b" FROM t; SELECT \'it\'\'s; fine\'', ['SELECT "a;b" FROM t', "SELECT 'it''s; fine'"]),
    ("SELECT '-- not a comment; still a string' AS s; SELECT $p", ["SELECT '-- not a comment; still a string' AS s",
                                                                  "SELECT :p"]),
    ("CREATE VIEW v AS SELECT 1; -- done", ["CREATE TEMP VIEW v AS SELECT 1"]),
])
def test_spark_statements_split_at_semicolons_in_code_only(sql, statements):
    from winnowdb.spark.sql import statements as split

    assert split(sql) == statements


def test_split_statements_keeps_comments_inside_and_drops_comment_only_statements():
    sql = "-- header; with a semicolon\nSELECT 1 /* ; */ AS one;\n/* nothing; here */;\nSELECT 'a;' AS two -- end;"
    assert sqlfiles.split_statements(sql) == ["-- header; with a semicolon\nSELECT 1 /* ; */ AS one",
                                              "SELECT 'a;' AS two -- end;"]
