"""The simhash Hamming-search queries run unchanged on Spark SQL and give the same rows as on
DuckDB (random simhashes with planted neighbours, copied into Spark temporary views).

Skipped when pyspark or a Java runtime is missing (pip install '.[spark]' in the winnowdb source folder).
"""
from __future__ import annotations

import os
import shutil

import pytest
from analysis.test_simhash_search import insert_documents, random_simhashes

import winnowdb
from winnowdb.analysis.near_duplicates import _ALL_ROWS, choose_layout, make_layout, online_layout
from winnowdb.store import sqlfiles

pyspark = pytest.importorskip("pyspark")
if not (os.environ.get("JAVA_HOME") or shutil.which("java")):  # pragma: no cover
    pytest.skip("Spark needs a Java runtime", allow_module_level=True)


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    """(DuckDB Index, SparkSession) over the same 3,000 documents: random simhashes, 300 planted
    near pairs, a few boilerplate documents, simhash-less documents and a shared submission."""
    sims = random_simhashes(3000, seed=21, planted=300, k=4)
    sims[100:104] = 0
    subs = [f"/s/{i}" for i in range(len(sims))]
    subs[1] = subs[0]  # a planted pair inside one submission: never reported
    kinds = ["boilerplate" if i % 97 == 5 else "document" for i in range(len(sims))]
    db = tmp_path_factory.mktemp("simhash_spark") / "i.duckdb"
    with winnowdb.open(db) as idx:
        insert_documents(idx, sims, submissions=subs, kinds=kinds)
    idx = winnowdb.open(db, read_only=True)

    from winnowdb.spark.session import get_session

    spark = get_session("local[1]", app_name="winnowdb-simhash-tests", conf={"spark.sql.shuffle.partitions": "2"})
    rows = idx.store.connection.execute("SELECT doc, path, submission, kind, simhash FROM documents").fetchall()
    spark.createDataFrame(rows, "doc int, path string, submission string, kind string, simhash bigint") \
        .createOrReplaceTempView("documents")
    yield idx, spark, sims
    idx.close()
    spark.stop()


def both(engines, name: str, layout, **params):
    """Rows of sql/<name>.sql on DuckDB and on Spark, with the layout's masks registered."""
    idx, spark, _ = engines
    sql = sqlfiles.load(name)
    values = sqlfiles.bind(sql, {"limit_rows": _ALL_ROWS, **params})
    con = idx.store.connection
    con.register("simhash_masks", layout.table())
    try:
        duck = [tuple(r) for r in con.execute(sql, values).fetchall()]
    finally:
        con.unregister("simhash_masks")
    spark.createDataFrame(layout.table().to_pandas()).createOrReplaceTempView("simhash_masks")
    sparks = [tuple(r) for r in spark.sql(sqlfiles.for_spark(sql), args=values).collect()]
    return duck, sparks


@pytest.mark.parametrize("k,levels", [(3, None), (3, (4, 4)), (0, None)])
def test_pairs_same_on_spark(engines, k, levels):
    layout = choose_layout(k, 3000, batch=True) if levels is None else make_layout(k, levels)
    duck, spark = both(engines, "near_duplicate_pairs", layout, hamming=k)
    assert duck == spark
    assert len(duck) >= 30  # the planted pairs (a fifth of them at distance 0)


@pytest.mark.parametrize("k", [0, 3])
def test_query_same_on_spark(engines, k):
    _, _, sims = engines
    for i in (0, 40, 2500):
        for exclude in (None, f"/s/{i}"):
            duck, spark = both(engines, "near_duplicates_of", online_layout(k), simhash=int(sims[i]),
                               hamming=k, exclude=exclude)
            assert duck == spark
            if exclude is None:  # the document itself, at distance 0
                assert duck and duck[0][1] == 0
