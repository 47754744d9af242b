"""One set of SQL on two engines: the Parquet export, Spark SQL parity, and the Spark jobs.

The sample corpus (boilerplate header, essays labelled 2023, code labelled 2024) is indexed with
DuckDB and exported with ``winnowdb export --parquet``; every query file in ``sql/`` then runs on
DuckDB (views over the export) and on Spark SQL (temporary views over the same files, made by the
same create_views.sql through ``sqlfiles.for_spark``), and the rows must be identical: same
pairs, same scores (exact doubles), same order. The Spark fingerprint job must produce the rows
``winnowdb add`` produces, and pairs / query hits computed on Spark must equal the index's own.

One local[2] Spark session is shared by the module (2 shuffle partitions, no UI); the first tests
need no Spark at all.
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import os
import shutil
from pathlib import Path

import pytest

from winnowdb.store import sqlfiles
from winnowdb.store.stats import NO_COMMON_FLOOR

REPO = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------- for_spark (no Spark)


def test_for_spark_rewrites_markers_and_views_only():
    sql = ("-- header: $not_a_param, CREATE VIEW in a comment\n"
           "CREATE OR REPLACE VIEW v AS SELECT $a AS x, '$literal -- not a comment' AS y -- $b\n"
           "FROM t WHERE z = $a_2;\n"
           "create view w as select 1;\n"
           "CREATE OR REPLACE TEMP VIEW u AS SELECT 'it''s $c'")
    out = sqlfiles.for_spark(sql)
    assert "CREATE OR REPLACE TEMP VIEW v AS SELECT :a AS x" in out
    assert "'$literal -- not a comment'" in out  # string literals untouched
    assert "z = :a_2;" in out
    assert "CREATE TEMP VIEW w as select 1" in out
    assert "CREATE OR REPLACE TEMP VIEW u AS SELECT 'it''s $c'" in out  # already temporary
    assert "$not_a_param" not in out and ":b" not in out  # comments dropped, not rewritten
    assert "$" not in out.replace("'$literal -- not a comment'", "").replace("'it''s $c'", "")
    assert sqlfiles.for_spark(out) == out  # idempotent


def test_for_spark_drops_the_materialized_hint():
    sql = ("WITH a AS MATERIALIZED (SELECT 1 AS x), b as materialized(SELECT 'AS MATERIALIZED (' AS y) "
           "SELECT * FROM a, b")
    out = sqlfiles.for_spark(sql)
    assert out == "WITH a AS (SELECT 1 AS x), b AS (SELECT 'AS MATERIALIZED (' AS y) SELECT * FROM a, b"
    assert "MATERIALIZED" not in sqlfiles.for_spark(sqlfiles.load("pairs"))


def test_for_spark_on_create_views_and_statement_split():
    from winnowdb.spark.sql import statements

    stmts = statements(sqlfiles.load("create_views"))
    assert stmts and all(s.startswith("CREATE OR REPLACE TEMP VIEW ") for s in stmts)
    names = [s.split()[5] for s in stmts]
    assert {"document_fingerprints", "fingerprint_df", "default_max_df"} <= set(names)
    assert statements("SELECT ';' AS x; SELECT 2;\n") == ["SELECT ';' AS x", "SELECT 2"]


#: DuckDB-only spellings that fail or differ on Spark SQL (docs/spark.md, "What stays the same")
TRAPS = {
    r"::": "a :: cast (write CAST(x AS T))",
    r"\brange\s*\(": "range() as a table",
    r"\bgenerate_series\s*\(": "generate_series() as a table",
    r"\blist_\w+\s*\(": "a list_* function",
    r"\bcount\s*\(\s*\)": "count() without an argument (write COUNT(*))",
    r"\bhash\s*\(": "hash() (differs between engines)",
    r"\^": "^ (power in DuckDB, XOR in Spark)",
    r"\bxor\s*\(": "xor() (DuckDB only)",
    r"\bqualify\b": "QUALIFY (DuckDB only)",
    r"\busing\s+sample\b": "USING SAMPLE (DuckDB only)",
    r"\bilike\b|\bregexp_matches\b": "a DuckDB-only string function",
    r"//": "// integer division (DuckDB only)",
    r"\bstruct_pack\b|\blist_value\b|\[\s*\]": "DuckDB list/struct syntax",
}


def _code_only(sql: str) -> str:
    import re

    out = []
    for literal, _comment, code in re.findall(r"('(?:[^']|'')*')|(--[^\n]*)|([^'-]+|-)", sql, re.DOTALL):
        if code:
            out.append(code)
        elif literal:
            out.append("''")
    return "".join(out)


@pytest.mark.parametrize("path", sorted((REPO / "sql").glob("*.sql")), ids=lambda p: p.stem)
def test_sql_files_avoid_duckdb_only_spellings(path):
    """A quick, engine-free early warning; the parity tests below are the real check. Files whose
    header says they run on DuckDB only (the index's bookkeeping and read path) are exempt."""
    import re

    if sqlfiles.duckdb_only(path.stem):
        return
    code = _code_only(path.read_text(encoding="utf-8")).lower()
    found = [why for pattern, why in TRAPS.items() if re.search(pattern, code, re.IGNORECASE)]
    assert not found, f"{path.name} uses {', '.join(found)}: not portable to Spark SQL"


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """Two copies of a module shorter than one k-gram of tokens: paired by their text family alone."""
    folder = tmp_path_factory.mktemp("tiny")
    for name in ("version.py", "version_copy.py"):
        (folder / name).write_text('__version__ = "3.10"\n', encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def spark_index(corpus, tiny, tmp_path_factory) -> Path:
    """A DuckDB index of the sample corpus with labels: essays 2023, code 2024."""
    import winnowdb

    db = tmp_path_factory.mktemp("spark-index") / "corpus.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([corpus / "boilerplate"], boilerplate=True)
        assert idx.add([corpus / "essays"], label="2023").added == 16
        assert idx.add([corpus / "code"], label="2024").added == 5
        assert idx.add([tiny], label="2024").added == 2
    return db


@pytest.fixture(scope="module")
def export_dir(spark_index, tmp_path_factory) -> Path:
    import winnowdb
    from winnowdb.store.export import export_parquet

    out = tmp_path_factory.mktemp("export") / "corpus-parquet"
    with winnowdb.open(spark_index, read_only=True) as idx:
        export_parquet(idx.store.connection, out, buckets=4, texts=True)
    return out


def _duck(export_dir: Path):
    import duckdb

    from winnowdb.store.export import duckdb_views

    con = duckdb.connect()
    duckdb_views(con, export_dir)
    return con


# --------------------------------------------------------------------------- export (no Spark)


def test_export_layout_keeps_types_and_buckets(spark_index, export_dir):
    import duckdb
    import pyarrow.parquet as pq

    from winnowdb.store.export import MANIFEST, read_manifest

    m = read_manifest(export_dir)
    assert m["buckets"] == 4 and m["bucket_expression"] == "((hash % 4) + 4) % 4"
    assert {"settings", "documents", "fingerprints", "document_texts"} <= set(m["tables"])
    assert m["settings"]["k"] and m["settings"]["hash_version"]
    con = duckdb.connect(str(spark_index), read_only=True)
    for table, info in m["tables"].items():
        assert info["rows"] == con.execute(f"SELECT COUNT(*) FROM {table}").fetchall()[0][0]
    hashes = []
    for part in sorted((export_dir / "fingerprints").iterdir()):
        assert part.name.startswith("bucket=")
        bucket = int(part.name.split("=")[1])
        for f in part.glob("*.parquet"):
            t = pq.read_table(f)
            assert t.schema.field("hash").type == "int64" and t.schema.field("doc").type == "int32"
            assert "bucket" not in t.column_names  # the bucket lives in the directory name only
            hs = t.column("hash").to_pylist()
            assert all(((h % 4) + 4) % 4 == bucket for h in hs)  # Python's % is already non-negative
            hashes += hs
    assert min(hashes) < 0 < max(hashes)  # signed 64-bit, never re-encoded
    assert sorted(hashes) == sorted(r[0] for r in con.execute("SELECT hash FROM fingerprints").fetchall())
    docs = pq.read_table(export_dir / "documents").schema
    assert docs.field("simhash").type == "int64" and docs.field("added_at").type.unit == "us"
    con.close()
    assert (export_dir / MANIFEST).exists()


def test_exported_views_include_pairs_and_answer_as_the_index(spark_index, export_dir):
    """``duckdb_views`` gives every convenience view of an index over the Parquet files, the
    ``pairs`` view too (it was missing: create_views.sql names it, store.py created it)."""
    import duckdb

    con = _duck(export_dir)
    exported = con.execute("SELECT * FROM pairs ORDER BY a, b").fetchall()
    index = duckdb.connect(str(spark_index), read_only=True)
    try:
        assert exported == index.execute("SELECT * FROM pairs ORDER BY a, b").fetchall()
    finally:
        index.close()
    assert exported


def test_export_refuses_to_clobber(spark_index, tmp_path):
    import winnowdb
    from winnowdb.errors import WinnowError
    from winnowdb.store.export import export_parquet

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "precious.txt").write_text("keep me")
    with winnowdb.open(spark_index, read_only=True) as idx:
        with pytest.raises(WinnowError, match="not empty"):
            export_parquet(idx.store.connection, tmp_path / "data")
        with pytest.raises(WinnowError, match="holds no winnowdb export"):
            export_parquet(idx.store.connection, tmp_path / "data", overwrite=True)
        m1 = export_parquet(idx.store.connection, tmp_path / "out", buckets=2)
        m2 = export_parquet(idx.store.connection, tmp_path / "out", buckets=3, overwrite=True)
    assert (tmp_path / "data" / "precious.txt").exists()
    assert m1["tables"]["fingerprints"] == m2["tables"]["fingerprints"]
    assert sorted(p.name for p in (tmp_path / "out" / "fingerprints").iterdir()) == \
        ["bucket=0", "bucket=1", "bucket=2"]
    assert not (tmp_path / "out" / "document_texts").exists()  # texts only with --texts


def test_duckdb_over_the_export_answers_like_the_index(spark_index, export_dir, corpus):
    import winnowdb

    con = _duck(export_dir)
    cap = con.execute("SELECT max_df FROM default_max_df").fetchall()[0][0]
    sql = sqlfiles.load("pairs")
    cur = con.execute(sql, sqlfiles.bind(sql, {"max_df": cap, "min_shared": 1, "new_label": None, "min_score": None}))
    cols = [d[0] for d in cur.description]
    rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    with winnowdb.open(spark_index, read_only=True) as idx:
        assert rows == idx.pairs(top=0)
        assert cap == idx.store.default_max_df()


def test_cli_export_then_import_round_trip(cli, spark_index, tmp_path):
    import winnowdb

    out = tmp_path / "exp"
    r = cli("export", "--parquet", out, "--db", spark_index, "--buckets", "3")
    assert r.exit_code == 0, r.output
    assert "fingerprints in 3 hash buckets" in r.output
    r = cli("export", "--parquet", out, "--db", spark_index)
    assert r.exit_code != 0 and "not empty" in r.output
    db2 = tmp_path / "back.duckdb"
    r = cli("import", "--parquet", out, "--db", db2)
    assert r.exit_code == 0, r.output
    with winnowdb.open(spark_index, read_only=True) as a, winnowdb.open(db2, read_only=True) as b:
        assert a.pairs(top=0) == b.pairs(top=0)
        assert a.settings == b.settings
        tides = next(p for (p,) in a.store.connection.execute(
            "SELECT path FROM documents WHERE path LIKE '%tides.txt'").fetchall())
        assert a.query(tides) == b.query(tides)
        # texts were read back from the files, so passages can be shown
        assert [p.matches for p in a.compare(tides, tides.replace("tides.txt", "tides_copy.txt")).passages] == \
               [p.matches for p in b.compare(tides, tides.replace("tides.txt", "tides_copy.txt")).passages]


# --------------------------------------------------------------------------- Spark


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark", reason="pip install -e '.[test,spark]' installs pyspark")
    from winnowdb.errors import WinnowError
    from winnowdb.spark.session import get_session, require_spark

    try:
        require_spark()
    except WinnowError as exc:
        pytest.skip(str(exc))
    session = get_session("local[2]", app_name="winnowdb-tests", conf={
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.sql.adaptive.enabled": "false",  # tiny data: skip re-planning
        # tiny data: interpreting beats compiling (halves the module's CPU time)
        "spark.sql.codegen.wholeStage": "false",
        "spark.sql.codegen.factoryMode": "NO_CODEGEN",
        "spark.driver.extraJavaOptions": "-XX:+UseSerialGC -XX:TieredStopAtLevel=1",  # fast JVM start
        "spark.python.worker.reuse": "true",
    })
    assert session.conf.get("spark.sql.ansi.enabled") == "true"  # the SQL must hold in ANSI mode
    yield session
    session.stop()


def _doc_ids(con) -> list[int]:
    return [r[0] for r in con.execute("SELECT doc FROM documents WHERE kind = 'document' ORDER BY doc").fetchall()]


def _relations(con, corpus: Path) -> dict:
    """The relations callers register before running some query files (small Arrow tables)."""
    import pyarrow as pa

    from winnowdb.analysis.near_duplicates import choose_layout, masks_table

    docs = _doc_ids(con)
    tides = con.execute("SELECT doc FROM documents WHERE path LIKE '%essays/tides.txt'").fetchall()[0][0]
    copy = con.execute("SELECT doc FROM documents WHERE path LIKE '%essays/tides_copy.txt'").fetchall()[0][0]
    boiler = con.execute("SELECT doc FROM documents WHERE path LIKE '%essays/lighthouses.txt'").fetchall()[0][0]
    # a side's rows with spans (the index stores none: Reader.sides fingerprints the texts again)
    fp = "SELECT hash, doc, pos, 3 * pos AS start_offset, 3 * pos + 20 AS end_offset FROM fingerprints WHERE doc = {}"
    return {
        "member_docs": pa.table({"doc": pa.array(docs, pa.int32())}),
        "query_fingerprints": con.sql(f"SELECT hash FROM fingerprints WHERE doc = {tides}").to_arrow_table(),
        "left_fingerprints": con.sql(fp.format(tides)).to_arrow_table(),
        "right_fingerprints": con.sql(fp.format(copy)).to_arrow_table(),
        "side_rows": con.sql(fp.format(boiler)).to_arrow_table(),  # boilerplate_spans.sql's side
        # a document carrying the boilerplate header (some of its hashes do not count), and the
        # two sides of passage_matches (which reads counted_hashes, derived from this below)
        "side_hashes": con.sql("SELECT f.hash FROM fingerprints f JOIN documents d ON d.doc = f.doc "
                               "WHERE d.path LIKE '%essays/lighthouses.txt' "
                               f"OR d.doc IN ({tides}, {copy})").to_arrow_table(),
        "simhash_masks": masks_table(choose_layout(3, len(docs), batch=True)),
        "query_docs": pa.table({"doc": pa.array([tides], pa.int32())}),
        # a code file's text family (query_hit_sizes.sql scores hits with it; the tides query's
        # hits have none, so its text CTEs run on real rows and still give the score S)
        # text_evidence.sql's sides: a code file's text family against every code submission's
        # (real rows: the renamed copy, the other code files)
        "query_text_hashes": con.sql("SELECT CAST(0 AS INTEGER) AS qid, t.hash FROM code_text_hashes t "
                                     "JOIN documents d ON d.doc = t.doc WHERE d.path LIKE '%code/stack.py'"
                                     ).to_arrow_table(),
        "hit_text_hashes": con.sql("SELECT DISTINCT d.sub, t.hash FROM code_text_hashes t JOIN documents d "
                                   "ON d.doc = t.doc WHERE d.kind = 'document'").to_arrow_table(),
        "text_pairs": con.sql("SELECT DISTINCT CAST(0 AS INTEGER) AS qid, sub FROM documents").to_arrow_table(),
    }


def _params(con) -> dict:
    """Parameter values for every query file (each file binds the ones it uses)."""
    cap = con.execute("SELECT max_df FROM default_max_df").fetchall()[0][0]
    settings = dict(con.execute("SELECT key, value FROM settings").fetchall())
    tides, sub, simhash = con.execute(
        "SELECT path, submission, simhash FROM documents WHERE path LIKE '%essays/tides.txt'").fetchall()[0]
    boiler_sub = con.execute("SELECT submission FROM documents WHERE path LIKE '%essays/lighthouses.txt'"
                             ).fetchall()[0][0]
    return {"max_df": cap, "common_floor": cap, "min_shared": 1, "new_label": None, "min_score": None, "exclude": sub,
            "limit_rows": 10, "tokenless_only": False,
            "top": None,
            "k": int(settings["k"]), "code_k": int(settings.get("code_k", settings["k"])),
            "s": 20, "length": 3, "min_resemblance": 0.1, "min_containment": 0.3,
            "submission": boiler_sub, "hamming": 3, "simhash": simhash, "path": tides}


#: relations that some files read and that are themselves the result of a query file
#: (materialized by the caller as in winnowdb.sketches): (relation, file, extra parameters)
DERIVED = [("usable_hashes", "cluster_usable_hashes", {}), ("counted_hashes", "countable_hashes", {}),
           ("query_found", "query_found", {}), ("query_hit_rows", "query_hits", {}),
           ("hit_hashes", "hit_hashes_stored", {}), ("hit_text", "text_evidence", {})]

#: (query file, parameter overrides): the same file may run with several bindings. Run here over
#: the exported Parquet files (the layout Spark reads in production).
PARITY = [
    ("pairs", {}),
    ("pairs", {"new_label": "2024", "min_shared": 3}),
    ("pairs", {"max_df": 2}),
    ("pairs", {"min_score": 0.5}),
    ("query_found", {}),
    ("query_found", {"exclude": None, "common_floor": NO_COMMON_FLOOR}),  # a file not indexed, below the floor
    ("query_found", {"common_floor": NO_COMMON_FLOOR}),  # the too common hashes from shared_hashes (Spark's way)
    ("query_hits", {}),  # the hits of query_found's rows (reads query_found, derived above)
    ("query_hits", {"top": 2, "exclude": None}),
    ("passage_matches", {}),
    ("countable_hashes", {}),
    ("countable_hashes", {"common_floor": NO_COMMON_FLOOR}),
    ("common_fingerprints", {}),
    ("index_summary", {}),
    ("window_density", {}),
    ("boilerplate_spans", {}),
    ("cluster_pairs", {}),  # Broder's candidate pairs (reads usable_hashes, derived above)
    ("near_duplicate_pairs", {"hamming": 20}),  # Manku et al.'s simhash block join
    ("simhash_of_document", {}),
    ("simhash_document_count", {}),
    ("query_documents", {}),
    ("query_document_hashes", {}),
    ("default_max_df_value", {}),
    ("settings_all", {}),
    ("meta_all", {}),
    ("hit_text_hashes", {}),  # the hits' text family (reads query_hit_rows)
    ("text_evidence", {}),  # the text family's evidence per hit (reads query_text_hashes, hit_text_hashes)
    ("query_text_found", {}),  # the hits of a query without code tokens (reads query_text_hashes, query_docs)
    ("query_text_found", {"exclude": None, "min_shared": 2}),
    ("query_text_found", {"tokenless_only": True}),  # a query with tokens: the hits without them
    ("tokenless_documents_any", {}),
    ("query_hit_sizes", {}),  # the hits of query_hits with sizes (reads query_hit_rows, hit_hashes, hit_text)
    ("query_hit_sizes", {"common_floor": NO_COMMON_FLOOR}),
    ("hit_hashes_stored", {}),
    ("common_fingerprints_counted", {}),
    # what an export without the kept statistics reads in their place (export.DERIVED)
    ("shared_hashes_counted", {}),
    ("boilerplate_hashes_counted", {}),
    ("meta_counted", {}),
    ("documents_pending_none", {}),
    ("code_text_hashes_none", {}),
    ("code_text_df_counted", {}),  # what code_text_df keeps (an export without the table reads it)
    ("common_hashes_none", {}),
    ("document_text_hashes", {}),
]

#: files whose DuckDB/Spark parity another test module checks (same rows from the same SQL text
#: through sqlfiles.for_spark), so this module does not run them again: file -> test module
COVERED_ELSEWHERE = {
    "cluster_usable_hashes": "test_clusters_spark.py",
    "cluster_member_pairs": "test_clusters_spark.py",
    "duplicate_representatives": "test_clusters_spark.py",
    "sketch_min_s": "test_clusters_spark.py",
    "sketch_pair_estimates": "test_clusters_spark.py",
    "sketch_query_hits": "test_clusters_spark.py",
    "super_shingle_candidates": "test_clusters_spark.py",
    "near_duplicates_of": "test_simhash_spark.py",
}

#: files that are not queries to run on an exported index, and why
NOT_PORTED = {
    "create_tables": "DDL of a DuckDB index file (Spark reads the exported Parquet instead)",
    "create_views": "run on Spark by register_export (tested below)",
    "cluster_table_create": "DDL: stores a clustering run in the DuckDB index",
    "cluster_table_clear": "DELETE from the DuckDB index",
    "cluster_table_insert": "INSERT into the DuckDB index",
}
#: prefixes of files that check a DuckDB index file's integrity (`winnowdb check`)
NOT_PORTED_PREFIXES = ("check_",)


def test_every_query_file_is_in_a_parity_run():
    files = {p.stem for p in (REPO / "sql").glob("*.sql")}
    elsewhere = {}
    for name, module in COVERED_ELSEWHERE.items():
        path = Path(__file__).with_name(module)
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if f'"{name}"' in text and "for_spark" in text:
            elsewhere[name] = module
    covered = {name for name, _ in PARITY} | set(NOT_PORTED) | set(elsewhere)
    missing = sorted(f for f in files - covered
                     if not f.startswith(NOT_PORTED_PREFIXES) and not sqlfiles.duckdb_only(f))
    assert not missing, (f"sql/ files not run on both engines: {missing}; add them to PARITY in "
                         f"tests/test_spark.py (with the relations they need) or to NOT_PORTED with a reason")


@pytest.fixture(scope="module")
def parity(spark, export_dir, corpus):
    """{(file, overrides as json): (duckdb rows, spark rows or the Spark error)} for PARITY."""
    from winnowdb.spark import sql as ssql

    con = _duck(export_dir)
    names = ssql.register_export(spark, export_dir)
    assert "document_texts" in names
    relations = _relations(con, corpus)
    for name, table in relations.items():
        con.register(name, table)
        spark.createDataFrame(table).createOrReplaceTempView(name)
    params = _params(con)
    present = {p.stem for p in (REPO / "sql").glob("*.sql")}
    for relation, name, extra in DERIVED:
        if name not in present:
            continue
        sql = sqlfiles.load(name)
        args = sqlfiles.bind(sql, {**params, **extra})
        con.register(relation, con.sql(sql, params=args).to_arrow_table())
        ssql.run(spark, name, **{**params, **extra}).cache().createOrReplaceTempView(relation)

    def spark_rows(key):
        name, over = key
        try:
            return [tuple(r) for r in ssql.run(spark, name, **{**params, **over}).collect()]
        except Exception as exc:  # noqa: BLE001 - reported by the test of that file
            return exc

    wanted = [(n, o) for n, o in PARITY if n in present]
    with cf.ThreadPoolExecutor(max_workers=3) as pool:  # small jobs: overlap planning and running
        spark_results = dict(zip([(n, json.dumps(o, sort_keys=True)) for n, o in wanted],
                                 pool.map(spark_rows, wanted)))
    out = {}
    for name, over in wanted:
        sql = sqlfiles.load(name)
        duck = con.execute(sql, sqlfiles.bind(sql, {**params, **over})).fetchall()
        key = (name, json.dumps(over, sort_keys=True))
        out[key] = (duck, spark_results[key])
    con.close()
    return out


@pytest.mark.parametrize("name,over", PARITY, ids=[f"{n}{'-' + '-'.join(f'{k}={v}' for k, v in o.items()) if o else ''}"
                                                    for n, o in PARITY])
def test_query_file_gives_identical_rows_on_duckdb_and_spark(parity, name, over):
    key = (name, json.dumps(over, sort_keys=True))
    if key not in parity:
        pytest.skip(f"sql/{name}.sql is not in this tree")
    duck, spark_rows = parity[key]
    if isinstance(spark_rows, Exception):
        pytest.fail(f"sql/{name}.sql fails on Spark SQL: {str(spark_rows).splitlines()[0]}")
    if _ordered(sqlfiles.load(name)):
        assert spark_rows == duck  # same rows, same order, exact doubles
    else:  # the file promises no order: the same rows (exact doubles) in any order
        assert sorted(spark_rows, key=repr) == sorted(duck, key=repr)


def _ordered(sql: str) -> bool:
    """Whether a query's outermost SELECT has an ORDER BY (one after the last parenthesis)."""
    code = _code_only(sql).upper()
    last = code.rfind("ORDER BY")
    return last != -1 and last > code.rfind(")")


def test_parity_covers_real_answers(parity):
    """The fixture corpus exercises the interesting paths (not a vacuous 'both empty')."""
    rows = {k[0]: v[0] for k, v in parity.items() if k[1] == "{}"}
    assert len(rows["pairs"]) >= 5 and len(rows["query_hits"]) >= 1 and len(rows["passage_matches"]) >= 5
    assert any(r[2] == 0 and r[-1] == 1.0 for r in rows["pairs"]), "the token-less pair, by its text family"
    assert rows["query_text_found"], "stack.py's text family finds the code files"
    assert rows["cluster_pairs"] and parity[("near_duplicate_pairs", json.dumps({"hamming": 20}))][0]
    assert rows["boilerplate_spans"], "the boilerplate essay should show a boilerplate span"
    assert len(rows["text_evidence"]) >= 2, "stack.py's text family against the code files"
    newer = parity[("pairs", json.dumps({"new_label": "2024", "min_shared": 3}, sort_keys=True))][0]
    assert newer and len(newer) < len(rows["pairs"])


def _file_list(corpus: Path, tmp: Path, tiny: Path) -> tuple[Path, Path]:
    """The corpus as the job's file lists (as ``spark_index`` adds it): path, submission (itself), label."""
    docs = tmp / "files.txt"
    lines = [f"{p}\t\t2023" for p in sorted((corpus / "essays").iterdir())]
    lines += [f"{p}\t{p}\t2024" for p in [*sorted((corpus / "code").iterdir()), *sorted(tiny.iterdir())]]
    lines += ["# a comment", "", str(corpus / "essays")]  # a directory is reported, not walked
    docs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    boiler = tmp / "boilerplate.txt"
    boiler.write_text("".join(f"{p}\n" for p in sorted((corpus / "boilerplate").iterdir())), encoding="utf-8")
    return docs, boiler


@pytest.fixture(scope="module")
def spark_fingerprinted(spark, corpus, tiny, tmp_path_factory):
    from winnowdb.spark import jobs

    tmp = tmp_path_factory.mktemp("spark-fp")
    docs, boiler = _file_list(corpus, tmp, tiny)
    out = tmp / "fp"
    manifest = jobs.fingerprint(spark, str(docs), str(out), boilerplate_list=str(boiler), buckets=3,
                                partitions=2, texts=False)
    return out, manifest


def test_spark_fingerprint_job_writes_what_add_stores(spark_fingerprinted, spark_index):
    import duckdb

    from winnowdb.store.export import read_manifest

    out, manifest = spark_fingerprinted
    assert read_manifest(out)["tables"]["fingerprints"]["rows"] == manifest["tables"]["fingerprints"]["rows"]
    assert manifest["skipped"] == 1 and "directory" in manifest["skipped_examples"][0][1]
    assert sorted(p.name for p in (out / "fingerprints").iterdir() if p.is_dir()) == \
        ["bucket=0", "bucket=1", "bucket=2"]
    spark_db = _duck(out)
    index = duckdb.connect(str(spark_index), read_only=True)
    cols = [r[0] for r in index.execute("SELECT column_name FROM information_schema.columns "
                                        "WHERE table_name = 'documents' ORDER BY ordinal_position").fetchall()]
    # ids follow the list, not the adds; the files' times are this machine's, left out of exports
    same = [c for c in cols if c not in ("doc", "added_at", "sub", "mtime_ns", "ctime_ns")]
    q = f"SELECT {', '.join(same)} FROM documents ORDER BY path"
    assert spark_db.execute(q).fetchall() == index.execute(q).fetchall()
    # the same submissions share an id (over the whole list, not per batch of files)
    together = ("SELECT a.path, list(b.path ORDER BY b.path) FROM documents a JOIN documents b ON a.sub = b.sub "
                "GROUP BY a.path ORDER BY a.path")
    assert spark_db.execute(together).fetchall() == index.execute(together).fetchall()
    assert spark_db.execute("SELECT COUNT(*) FROM documents WHERE sub <> (SELECT MIN(doc) FROM documents d "
                            "WHERE d.submission = documents.submission)").fetchall()[0][0] == 0
    fq = ("SELECT d.path, f.hash, f.pos FROM fingerprints f "
          "JOIN documents d ON d.doc = f.doc ORDER BY 1, 3, 2")
    assert spark_db.execute(fq).fetchall() == index.execute(fq).fetchall()
    ids = [r[0] for r in spark_db.execute("SELECT doc FROM documents ORDER BY doc").fetchall()]
    assert ids == list(range(1, 24)) + [25]  # list lines: documents, then boilerplate (24, the directory, skipped)
    settings = dict(spark_db.execute("SELECT key, value FROM settings").fetchall())
    stored = dict(index.execute("SELECT key, value FROM settings").fetchall())
    assert {k: settings[k] for k in ("k", "w", "normalizer", "hash_version", "selection")} == \
           {k: stored[k] for k in ("k", "w", "normalizer", "hash_version", "selection")}
    spark_db.close()
    index.close()


def test_spark_pairs_job_equals_index_pairs_and_loads_back(spark, spark_fingerprinted, spark_index, tmp_path):
    import winnowdb
    from winnowdb.spark import jobs
    from winnowdb.store.export import import_pairs

    out, _ = spark_fingerprinted
    pairs_dir = tmp_path / "pairs"
    _, cap = jobs.pairs(spark, str(out), str(pairs_dir))
    db = tmp_path / "browse.duckdb"
    shutil.copy(spark_index, db)
    with winnowdb.open(db) as idx:
        expected = idx.pairs(top=0)
        assert cap == idx.store.default_max_df()
        assert import_pairs(idx.store.connection, pairs_dir) == len(expected)
        cur = idx.store.connection.execute("SELECT * FROM spark_pairs")
        cols = [d[0] for d in cur.description]
        assert [dict(zip(cols, r)) for r in cur.fetchall()] == expected
        # plain DuckDB reads the files too, in pairs.sql's order
        plain = idx.store.connection.execute(f"SELECT a, b FROM read_parquet('{pairs_dir}/*.parquet')").fetchall()
        assert plain == [(p["a"], p["b"]) for p in expected]


def test_spark_query_equals_index_query(spark, spark_fingerprinted, spark_index, corpus, tiny, tmp_path):
    import winnowdb
    from winnowdb.spark import lookup

    out, _ = spark_fingerprinted
    outside = tmp_path / "outside.txt"  # not indexed: fingerprinted with the export's settings
    outside.write_text((corpus / "essays" / "glaciers.txt").read_text(encoding="utf-8")[:1500], encoding="utf-8")
    indexed = corpus / "essays" / "tides.txt"
    small = tmp_path / "package_data.py"  # no code token fingerprint: hits by its text family
    small.write_text((tiny / "version.py").read_text(encoding="utf-8"), encoding="utf-8")
    with winnowdb.open(spark_index, read_only=True) as idx:
        code = corpus / "code" / "stack.py"  # code: its hits scored with the text family too
        for i, (source, kw) in enumerate(((indexed, {}), (outside, {"top": 3}),
                                          (indexed, {"max_df": 2, "min_shared": 2}), (small, {}),
                                          (tiny / "version.py", {}), (code, {}))):
            expected = idx.query(source, top=kw.get("top", 0), max_df=kw.get("max_df"),
                                 min_shared=kw.get("min_shared", 1))
            got = lookup.query(spark, str(out), source, top=kw.get("top", 0), max_df=kw.get("max_df"),
                               min_shared=kw.get("min_shared", 1), registered=i > 0)
            assert got == expected and got
        assert any(h["text_containment"] is not None for h in got)


def test_cli_spark_pairs_and_query(cli, spark, export_dir, tmp_path):
    out = tmp_path / "pairs"
    r = cli("spark", "pairs", export_dir, out, "--min-shared", "2")
    assert r.exit_code == 0, r.output
    assert "pairs (max_df" in r.output and any(out.glob("*.parquet"))
    r = cli("spark", "pairs", export_dir, out)
    assert r.exit_code != 0 and "--overwrite" in r.output
    r = cli("spark", "query", export_dir, REPO / "sample_corpus" / "essays" / "tides_copy.txt", "-f", "json")
    assert r.exit_code == 0, r.output
    hits = json.loads(r.output)
    assert hits[0]["path"].endswith("tides_copy.txt") and hits[0]["containment"] == 1.0
    r = cli("spark", "pairs", tmp_path / "nothing-here", tmp_path / "p2")
    assert r.exit_code != 0 and "error" in r.output.lower()


def test_spark_entry_points_without_starting_spark(cli, tmp_path):
    """The spark-submit program answers --help, and bad options fail before any JVM starts."""
    import subprocess
    import sys

    from winnowdb.spark.jobs import job_settings

    r = subprocess.run([sys.executable, "-m", "winnowdb.spark", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "fingerprint" in r.stdout and "pairs" in r.stdout
    settings = job_settings(k=15, w=5, normalizer="words")
    assert (settings["k"], settings["w"], settings["normalizer"]) == ("15", "5", "words")
    assert settings["hash_version"]
    r = cli("spark", "fingerprint", tmp_path / "list.txt", tmp_path / "out", "--normalizer", "nope")
    assert r.exit_code != 0 and "unknown normalizer" in r.output


def test_spark_fingerprint_job_stores_a_file_listed_twice_once(spark, corpus, tmp_path):
    """Duplicates in the file list land in different partitions: they are dropped before
    partitioning (each batch only sees its own lines), keeping the first line's id."""
    import duckdb

    from winnowdb.spark import jobs

    essays = sorted((corpus / "essays").iterdir())[:3]
    lst = tmp_path / "files.txt"
    rel = os.path.relpath(essays[2])  # the same file by a relative path (the driver's working directory)
    (tmp_path / "linked").symlink_to(essays[0].parent)  # ... and through a linked folder
    lst.write_text("\n".join([str(essays[0]), str(essays[1]), str(essays[2]), str(essays[0]),
                              str(essays[1].parent / "." / essays[1].name), rel,
                              str(tmp_path / "linked" / essays[0].name)]) + "\n", encoding="utf-8")
    out = tmp_path / "fp"
    manifest = jobs.fingerprint(spark, str(lst), str(out), buckets=2, partitions=16)
    con = duckdb.connect()
    from winnowdb.store.export import duckdb_views

    duckdb_views(con, out)
    rows = con.execute("SELECT doc, path FROM documents ORDER BY doc").fetchall()
    assert [(d, Path(p).name) for d, p in rows] == [(1, essays[0].name), (2, essays[1].name), (3, essays[2].name)]
    assert manifest["tables"]["documents"]["rows"] == 3
