"""Looking one file up in an export on Spark: ``query``, as ``Index.query`` on a DuckDB index.

``sql/query_found.sql`` and ``query_hits.sql`` find the submissions sharing passages with the file,
(``query_text_found.sql`` for a file without code token fingerprints, as ``Index.query``),
``query_hit_sizes.sql`` gives them their sizes and scores (the hits' hashes read from the stored fingerprints, and the
code text family's evidence from ``text_evidence.sql``), all unchanged on Spark
(``winnowdb.spark.sql``).
"""
from __future__ import annotations

import os
from pathlib import Path

from ..store.stats import NO_COMMON_FLOOR
from . import sql as ssql
from .jobs import memory_store

__all__ = ["query"]


def query(spark, export_dir: str, source: str | os.PathLike, *, top: int = 10, max_df: int | None = None,
          min_shared: int = 1, registered: bool = False) -> list[dict]:
    """``sql/query_found.sql``, ``query_hits.sql`` and ``query_hit_sizes.sql`` on Spark: the
    submissions of an export sharing passages with ``source``, with sizes and scores (the hits'
    hashes read from the stored fingerprints: ``hit_hashes_stored.sql``).

    As ``Index.query``: an indexed file (or submission) is looked up by its stored fingerprints
    and does not find itself; any other file is fingerprinted with the export's settings.
    """
    import pyarrow as pa

    if not registered:
        ssql.register_export(spark, export_dir)
        ssql.cache_views(spark)
    p = str(Path(source).resolve())
    mine = ssql.run(spark, "query_documents", path=p).collect()
    if mine:
        exclude = mine[0][1]
        docs = pa.table({"doc": pa.array(sorted({r[0] for r in mine}), pa.int32())})
        spark.createDataFrame(docs).createOrReplaceTempView("query_docs")
        ssql.run(spark, "query_document_hashes").createOrReplaceTempView("query_fingerprints")
        text = ssql.run(spark, "document_text_hashes")  # its code text family (the pair score)
    else:
        exclude = None
        from ..analysis.sides import Reader

        store = memory_store(ssql.export_settings(spark))
        try:
            reader = Reader(store)
            side = reader.side(source)
            text = spark.createDataFrame(pa.table({"hash": reader.text_families([side])[0]}), "hash bigint")
        finally:
            store.close()
        table = pa.table({"hash": side.fingerprints["hash"]})
        spark.createDataFrame(table, "hash bigint").createOrReplaceTempView("query_fingerprints")
        spark.createDataFrame([], "doc int").createOrReplaceTempView("query_docs")  # none of its own
    text.selectExpr("CAST(0 AS INT) AS qid", "hash").createOrReplaceTempView("query_text_hashes")
    cap = int(max_df) if max_df and int(max_df) > 0 else ssql.default_max_df(spark)
    floor = NO_COMMON_FLOOR  # the too common hashes from shared_hashes: an export may lack common_hashes
    found = ssql.run(spark, "query_found", max_df=cap, common_floor=floor, exclude=exclude).cache()
    hits = None
    try:
        found.createOrReplaceTempView("query_found")
        hits = ssql.run(spark, "query_hits", exclude=exclude, min_shared=max(1, int(min_shared)),
                        top=int(top) if top and top > 0 else None).cache()
        if text.limit(1).count():  # the hits without code tokens, by the text family, as Index.query
            hits = _with_tokenless(spark, hits, cap, floor, exclude, min_shared)
        hits.createOrReplaceTempView("query_hit_rows")  # sizes and scores next, as Index.query
        ssql.run(spark, "hit_hashes_stored").createOrReplaceTempView("hit_hashes")
        ssql.run(spark, "hit_text_hashes").createOrReplaceTempView("hit_text_hashes")
        hits.selectExpr("CAST(0 AS INT) AS qid", "sub").createOrReplaceTempView("text_pairs")
        ssql.run(spark, "text_evidence", max_df=cap).createOrReplaceTempView("hit_text")
        ranked = ssql.rows(ssql.run(spark, "query_hit_sizes", max_df=cap, common_floor=floor))
        return ranked[:top] if top and top > 0 else ranked
    finally:
        if hits is not None:
            hits.unpersist()
        found.unpersist()


def _with_tokenless(spark, hits, cap: int, floor: int, exclude, min_shared: int):
    """``hits`` (cached) and the hits ``query_text_found.sql`` finds: those without code token
    fingerprints, or every hit of a query without them; each carrying the query's usable token
    count as ``Index.query`` gives it (``analysis.query``)."""
    tokens = spark.table("query_fingerprints").limit(1).count() > 0
    if tokens and not ssql.rows(ssql.run(spark, "tokenless_documents_any"))[0]["found"]:
        return hits
    more = ssql.run(spark, "query_text_found", max_df=cap, exclude=exclude, min_shared=max(1, int(min_shared)),
                    tokenless_only=tokens)
    if not more.limit(1).count():
        return hits
    first = hits.select("query_fingerprints").limit(1).collect()
    if first:
        n = int(first[0][0])
    elif tokens:
        spark.table("query_fingerprints").createOrReplaceTempView("side_hashes")
        n = ssql.run(spark, "countable_hashes", max_df=cap, common_floor=floor).count()
    else:
        n = 0
    token = hits.select("sub", "submission", "shared", "query_fingerprints")
    types = {f.name: f.dataType.simpleString() for f in token.schema.fields}
    more = more.selectExpr(*(f"CAST({c} AS {types[c]}) AS {c}" for c in ("sub", "submission", "shared")),
                           f"CAST({int(n)} AS {types['query_fingerprints']}) AS query_fingerprints")
    # a few hundred rows at most: a local relation (a union of the two plans, cached, made Spark 4.0
    # fail on the later query's scalar subqueries: "Invalid call to qualifier on unresolved object")
    joined = spark.createDataFrame(token.collect() + more.collect(), token.schema).cache()
    hits.unpersist()
    return joined
