"""The duplicate, sketch, super-shingle and cluster queries run unchanged on Spark SQL and give the
same rows as on DuckDB (a small real index, copied into Spark temporary views).

Skipped when pyspark or a Java runtime is missing (pip install '.[spark]' in the winnowdb source folder).
"""
from __future__ import annotations

import math
import os
import random
import shutil

import pytest

import winnowdb
from winnowdb.store import sqlfiles

pyspark = pytest.importorskip("pyspark")
if not (os.environ.get("JAVA_HOME") or shutil.which("java")):  # pragma: no cover
    pytest.skip("Spark needs a Java runtime", allow_module_level=True)

SPARK_TYPES = {"INTEGER": "int", "BIGINT": "bigint", "VARCHAR": "string", "DOUBLE": "double",
               "TIMESTAMP": "timestamp_ntz", "HUGEINT": "decimal(38,0)"}


def _words(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefgh") for _ in range(4)) for _ in range(400)]
    return [rng.choice(vocab) for _ in range(n)]


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    root = tmp_path_factory.mktemp("spark_docs")
    base = _words(1, 120)
    texts = {
        "a.txt": base, "a_copy.txt": base, "a_edit.txt": base[:60] + _words(2, 5) + base[65:],
        "b.txt": _words(3, 90), "b_part.txt": _words(3, 90)[20:50], "c.txt": _words(4, 80),
        "rose.txt": "a rose is a rose is a rose".split(), "rose2.txt": "a rose is a rose is a rose is a rose".split(),
        "tiny.txt": ["one", "two"],
    }
    for name, words in texts.items():
        (root / name).write_text(" ".join(words) + "\n")
    (root / "upper.txt").write_text(" ".join(base).upper() + "\n")
    (root / "bp").mkdir()
    (root / "bp" / "header.txt").write_text(" ".join(_words(4, 80)[:30]) + "\n")
    db = root / "i.duckdb"
    idx = winnowdb.open(db, normalizer="words", selection="all", k=4)
    idx.add([root / "bp"], boilerplate=True)
    idx.add([root / n for n in (*texts, "upper.txt")])

    from winnowdb.spark.session import get_session

    spark = get_session("local[1]", app_name="winnowdb-tests", conf={"spark.sql.shuffle.partitions": "2"})
    con = idx.store.connection
    # the tables the views read, kept statistics included
    for table in ("documents", "fingerprints", "shared_hashes", "boilerplate_hashes", "code_text_hashes",
                  "code_text_df"):
        cols = con.execute(f"DESCRIBE {table}").fetchall()
        schema = ", ".join(f"{c[0]} {SPARK_TYPES[c[1]]}" for c in cols)
        spark.createDataFrame(con.execute(f"SELECT * FROM {table}").fetchall(), schema).createOrReplaceTempView(table)
    for stmt in sqlfiles.for_spark(sqlfiles.load("create_views")).split(";"):
        if stmt.strip():
            spark.sql(stmt)
    yield idx, spark
    idx.close()
    spark.stop()  # the next module starts its own session, with its own settings


def _view(idx, spark, name: str, rows_sql: str) -> None:
    """Copy a DuckDB query result into a Spark temporary view ``name`` and a DuckDB temp table."""
    con = idx.store.connection
    cur = con.execute(rows_sql)
    cols = [d[0] for d in cur.description]
    rows = cur.fetchall()
    types = [con.execute(f"SELECT typeof({c}) FROM ({rows_sql}) LIMIT 1").fetchall() for c in cols]
    schema = ", ".join(f"{c} {SPARK_TYPES[t[0][0]] if t else 'bigint'}" for c, t in zip(cols, types))
    spark.createDataFrame(rows, schema).createOrReplaceTempView(name)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {rows_sql}")


def _same(idx, spark, name: str, **params):
    sql = sqlfiles.load(name)
    duck = idx.store.connection.execute(sql, sqlfiles.bind(sql, params)).fetchall()
    sp = [tuple(r) for r in spark.sql(sqlfiles.for_spark(sql), args=sqlfiles.bind(sql, params)).collect()]

    def norm(rows):
        return sorted(tuple(round(v, 9) if isinstance(v, float) else (int(v) if hasattr(v, "as_integer_ratio")
                                                                      and not isinstance(v, float) else v)
                            for v in r) for r in rows)

    assert norm(duck) == norm(sp), name
    return duck


def test_queries_agree_on_duckdb_and_spark(engines):
    idx, spark = engines
    reps = _same(idx, spark, "duplicate_representatives")
    assert any(r[3] != r[0] for r in reps) and any(r[5] != r[4] for r in reps)  # identical and fingerprint groups
    members = "SELECT DISTINCT fingerprint_rep AS doc FROM (" + sqlfiles.load("duplicate_representatives") + ") r"
    _view(idx, spark, "member_docs", members)
    _same(idx, spark, "cluster_usable_hashes", max_df=4)
    _view(idx, spark, "usable_hashes", _sql_with(sqlfiles.load("cluster_usable_hashes"), max_df=4))
    pairs = _same(idx, spark, "cluster_pairs", min_resemblance=0.2, min_containment=None)
    assert pairs
    _same(idx, spark, "cluster_pairs", min_resemblance=0.9, min_containment=0.8)
    _same(idx, spark, "sketch_min_s", s=7)
    _view(idx, spark, "doc_sketches", _sql_with(sqlfiles.load("sketch_min_s"), s=7))
    assert _same(idx, spark, "super_shingle_candidates", length=3)
    _view(idx, spark, "sketch_pairs_wanted",
          "SELECT x.doc AS a, y.doc AS b FROM member_docs x JOIN member_docs y ON x.doc < y.doc")
    est = _same(idx, spark, "sketch_pair_estimates", s=7)
    assert any(0 < r[4] < 1 for r in est)
    _view(idx, spark, "cluster_assignment", "SELECT doc, 1 AS cluster FROM member_docs")
    _same(idx, spark, "cluster_member_pairs")
    _view(idx, spark, "query_fingerprints",
          "SELECT f.hash FROM fingerprints f JOIN documents d ON d.doc = f.doc WHERE d.path LIKE '%a_edit.txt'")
    hits = _same(idx, spark, "sketch_query_hits", s=10, max_df=4, exclude=None, min_shared=1)
    assert hits and not any(math.isnan(r[3]) for r in hits)


def _sql_with(sql: str, **params) -> str:
    """The query with its parameters written in as literals (to copy its result into a view)."""
    body = sqlfiles._strip_comments(sql)
    for k, v in params.items():
        body = body.replace(f"${k}", str(v))
    return body
