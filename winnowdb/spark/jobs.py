"""winnowdb's distributed jobs: fingerprint a file list, count pairs, look a file up.

``fingerprint`` runs winnowdb's own ``add`` pipeline on the executors: each Arrow batch of listed
files is added to a private in-memory DuckDB index (``Store.in_memory``, with the job's settings)
by ``winnowdb.ingest.pipeline.add_paths``: the same reading, decoding, normalizer choice,
fingerprinting, huge-file segmentation and simhash as ``winnowdb add``), whose rows are streamed
back to Spark with their doc ids made global, and written in the export layout of
``winnowdb.export``. So a directory made by the job
and one made by ``winnowdb export --parquet`` from an index of the same files hold the same rows
(doc ids and added_at aside), and every query gives the same answer on both.

``pairs`` runs ``sql/pairs.sql`` unchanged on Spark (``winnowdb.spark.sql``); looking one file up
is ``winnowdb.spark.lookup``.
"""
from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, Iterator

from ..errors import WinnowError
from ..store.export import DEFAULT_BUCKETS, FORMAT, FORMAT_VERSION, LOCAL_COLUMNS, MANIFEST, bucket_sql
from . import sql as ssql

__all__ = ["job_settings", "fingerprint", "pairs", "DUCKDB_TO_SPARK", "FILES_PER_BATCH",
           "memory_store"]

#: DuckDB column types of the index tables -> Spark SQL types
DUCKDB_TO_SPARK = {"INTEGER": "int", "BIGINT": "bigint", "VARCHAR": "string", "DOUBLE": "double",
                   "BOOLEAN": "boolean", "TIMESTAMP": "timestamp_ntz", "SMALLINT": "smallint",
                   "FLOAT": "float", "DATE": "date"}
#: Spark SQL types -> Arrow types of the rows the executors yield
_ARROW = {"int": "int32", "bigint": "int64", "string": "string", "double": "float64", "boolean": "bool_",
          "timestamp_ntz": "timestamp", "smallint": "int16", "float": "float32", "date": "date32"}
#: files handed to one in-memory index at a time (one Arrow batch)
FILES_PER_BATCH = 256
_MAX_DOC = 2**31 - 1  # documents.doc is an INTEGER


def job_settings(**given: Any) -> dict[str, str]:
    """The settings a new index would get with these options (as ``winnowdb add`` makes them)."""
    from ..settings import IndexSettings

    store = memory_store(IndexSettings.for_new_index(**{k: v for k, v in given.items() if v is not None}))
    try:
        return dict(store.settings)
    finally:
        store.close()


def memory_store(settings: dict[str, str]):
    """A new, empty index held in memory (never a file) with exactly these settings."""
    from ..store.database import Store

    return Store.in_memory(settings)


def _documents_schema(settings: dict[str, str]) -> list[tuple[str, str]]:
    """(column, Spark type) of the documents table, read from create_tables.sql via DuckDB (but
    for the columns an export leaves out, ``export.LOCAL_COLUMNS``)."""
    store = memory_store(settings)
    try:
        cols = [(c, t) for table, c, t in store.rows("table_columns")
                if table == "documents" and c not in LOCAL_COLUMNS["documents"]]
    finally:
        store.close()
    out = []
    for name, dtype in cols:
        if dtype not in DUCKDB_TO_SPARK:
            raise WinnowError(f"documents.{name}: DuckDB type {dtype} has no Spark counterpart here")
        out.append((name, DUCKDB_TO_SPARK[dtype]))
    return out


#: the fingerprints of a document travel as arrays in its row (one row per document: far
#: cheaper to move from Python to the JVM than one row per fingerprint), exploded by Spark SQL
_ARRAYS = (("hash", "bigint"), ("pos", "int"))


def _row_schema(doc_cols: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The rows the executors yield: one per document, or one per skipped file.

    row_kind 'd': a documents row with its fingerprints as arrays, its code text family's hashes
    (``ct_hash``: empty for text) and, with texts, its text;
    row_kind 's': a skipped file (path, reason).
    """
    cols = [("row_kind", "string")] + list(doc_cols)
    cols += [(f"fp_{name}", f"array<{typ}>") for name, typ in _ARRAYS]
    cols += [("ct_hash", "array<bigint>"), ("text", "string"), ("reason", "string")]
    return cols


def _arrow_type(spark_type: str, pa):
    if spark_type.startswith("array<"):
        return pa.list_(_arrow_type(spark_type[6:-1], pa))
    name = _ARROW[spark_type]
    return pa.timestamp("us") if name == "timestamp" else getattr(pa, name)()


def _fingerprint_batches(settings: dict[str, str], doc_cols: list[str], row_schema: list[tuple[str, str]],
                         texts: bool, language: str | None):
    """The mapInArrow function: listed files (id, path, submission, label, kind) -> rows."""

    def run(batches: Iterator) -> Iterator:
        import numpy as np
        import pyarrow as pa

        from ..ingest.pipeline import add_paths

        types = {name: _arrow_type(typ, pa) for name, typ in row_schema}
        for batch in batches:
            listed = batch.to_pydict()
            if not listed["id"]:
                continue
            store = memory_store(settings)
            try:
                yield from _one_batch(store, listed, doc_cols, types, texts, language, add_paths, np, pa)
            finally:
                store.close()

    return run


def _one_batch(store, listed, doc_cols, types, texts, language, add_paths, np, pa):
    wanted: dict[str, tuple[int, str, str | None]] = {}
    skipped: list[tuple[str, str]] = []
    by_kind: dict[str, list[str]] = {"document": [], "boilerplate": []}
    for ident, raw, submission, label, kind in zip(listed["id"], listed["path"], listed["submission"],
                                                   listed["label"], listed["kind"]):
        p = Path(raw)
        if p.is_dir():
            skipped.append((raw, "a directory: list its files, one per line"))
            continue
        resolved = str(p.resolve()) if p.exists() else raw
        if resolved in wanted:
            skipped.append((raw, "listed twice"))
            continue
        wanted[resolved] = (int(ident), submission or resolved, label)
        by_kind["boilerplate" if kind == "boilerplate" else "document"].append(raw)
    for kind, paths in by_kind.items():
        if paths:
            summary = add_paths(store, paths, boilerplate=kind == "boilerplate", language=language, jobs=1)
            skipped.extend((s.path, s.reason) for s in summary.skipped)
    def emit(kind: str, columns: dict[str, Any], rows: int):
        arrays = []
        for c, typ in types.items():
            if c == "row_kind":
                arrays.append(pa.array([kind] * rows, typ))
            elif c in columns:
                col = columns[c]
                col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
                arrays.append(col if col.type == typ else col.cast(typ))
            else:
                arrays.append(pa.nulls(rows, typ))
        return pa.RecordBatch.from_arrays(arrays, names=list(types))

    docs = store.arrow("documents_all")
    n = docs.num_rows
    if n:
        paths = docs.column("path").to_pylist()
        cols: dict[str, Any] = {c: docs.column(c) for c in doc_cols}
        cols["doc"] = pa.array([wanted[p][0] for p in paths], pa.int32())
        cols["submission"] = pa.array([wanted[p][1] for p in paths], pa.string())
        cols["label"] = pa.array([wanted[p][2] for p in paths], pa.string())
        # every document's fingerprints, in stored order, cut into one list per document
        fps = store.arrow("fingerprints_by_document")
        counts = dict(store.rows("fingerprint_counts"))
        sizes = np.array([counts.get(d, 0) for d in docs.column("doc").to_pylist()], dtype=np.int64)
        offsets = pa.array(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32))
        for name, _ in _ARRAYS:
            values = fps.column(name).combine_chunks()
            cols[f"fp_{name}"] = pa.ListArray.from_arrays(offsets, values)
        ct = store.columns("code_text_by_document")  # the code's text family, in document order
        starts = np.searchsorted(ct["doc"], np.array(docs.column("doc").to_pylist() + [_MAX_DOC], np.int64))
        cols["ct_hash"] = pa.ListArray.from_arrays(pa.array(starts.astype(np.int32)), pa.array(ct["hash"], pa.int64()))
        if texts:
            t = store.arrow("texts_by_document")
            cols["text"] = t.column("text")
        yield emit("d", cols, n)
    if skipped:
        yield emit("s", {"path": pa.array([s[0] for s in skipped], pa.string()),
                         "reason": pa.array([s[1] for s in skipped], pa.string())}, len(skipped))


def _path_key(path: str) -> str:
    """A listed path as compared for duplicates: the file it names, symbolic links followed, as the
    executors resolve it (``./a.txt``, ``a.txt``, its absolute path and a path through a linked
    folder are one file; a relative path is taken from the driver's working directory, as a local
    Spark's executors take it). URIs (``hdfs://...``) are compared as written, normalized."""
    import os
    import posixpath

    if "://" in path:
        return posixpath.normpath(path)
    return os.path.realpath(path)


def _read_list(spark, filelist: str, kind: str):
    """RDD of (path, submission, label, kind) from a file list: ``path[<TAB>submission[<TAB>label]]``."""

    def parse(line: str):
        parts = line.rstrip("\r").split("\t")
        path = parts[0].strip()
        submission = parts[1] if len(parts) > 1 and parts[1] else None
        label = parts[2] if len(parts) > 2 and parts[2] else None
        return (path, submission, label, kind)

    return (spark.read.text(str(filelist)).rdd.map(lambda r: r[0])
            .filter(lambda s: s.strip() != "" and not s.lstrip().startswith("#")).map(parse))


def _write_text(spark, path: str, data: str) -> None:
    """Write a small text file to a local path or any filesystem Spark writes to."""
    if ssql.is_local(path):
        Path(ssql.local_path(path)).write_text(data, encoding="utf-8")
        return
    jvm = spark.sparkContext._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(path)
    fs = hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    stream = fs.create(hpath, True)
    try:
        stream.write(bytearray(data.encode("utf-8")))
    finally:
        stream.close()


def _check_out(spark, out: str, overwrite: bool) -> None:
    if ssql.is_local(out):
        p = Path(ssql.local_path(out))
        if p.exists() and (not p.is_dir() or any(p.iterdir())):
            if not overwrite:
                raise WinnowError(f"{out} exists and is not empty (use --overwrite to replace it)")
            if p.is_dir() and not (p / MANIFEST).exists() and not (p / "_SUCCESS").exists():
                raise WinnowError(f"{out} is not empty and holds no winnowdb output; not overwriting it")
            import shutil

            shutil.rmtree(p) if p.is_dir() else p.unlink()


def fingerprint(spark, filelist: str, out: str, *, boilerplate_list: str | None = None,
                settings: dict[str, str] | None = None, buckets: int = DEFAULT_BUCKETS,
                texts: bool = False, language: str | None = None, partitions: int | None = None,
                files_per_batch: int = FILES_PER_BATCH, overwrite: bool = False) -> dict:
    """Fingerprint every file in ``filelist`` (and ``boilerplate_list``) into the export layout.

    Each line of a list is ``path``, ``path<TAB>submission`` or ``path<TAB>submission<TAB>label``
    (blank lines and lines starting with # are ignored). Paths must be readable by the executors
    (a shared filesystem); directories are not walked (list their files). Doc ids follow the
    lines: documents first, then boilerplate. ``settings`` are a new index's settings
    (``job_settings``). Returns the manifest written to ``out``.
    """
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    settings = dict(settings or job_settings())
    if int(buckets) < 1:
        raise WinnowError(f"buckets must be a positive whole number, not {buckets}")
    _check_out(spark, out, overwrite)
    doc_schema = _documents_schema(settings)
    doc_cols = [c for c, _ in doc_schema]
    row_schema = _row_schema(doc_schema)
    schema = ", ".join(f"`{c}` {t}" for c, t in row_schema)

    listed = _read_list(spark, filelist, "document")
    if boilerplate_list:
        listed = listed.union(_read_list(spark, boilerplate_list, "boilerplate"))
    numbered = listed.zipWithIndex().map(lambda x: (x[1] + 1, *x[0]))
    # a file listed twice (in one list, or in both) is fingerprinted once, as its first line says
    numbered = numbered.map(lambda r: (_path_key(r[1]), r)).reduceByKey(lambda a, b: a if a[0] <= b[0] else b) \
        .values()
    files = spark.createDataFrame(numbered, "id bigint, path string, submission string, label string, kind string")
    n_parts = partitions or max(2, spark.sparkContext.defaultParallelism * 4)
    files = files.repartition(int(n_parts))
    previous = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch", None)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(int(files_per_batch)))
    base = str(out).rstrip("/")
    try:
        rows = files.mapInArrow(_fingerprint_batches(settings, doc_cols, row_schema, texts, language), schema)
        rows = rows.persist(StorageLevel.MEMORY_AND_DISK)
        stats = rows.groupBy("row_kind").agg(F.count(F.lit(1)).alias("n"),
                                             F.sum(F.size("fp_hash")).alias("fps"),
                                             F.sum(F.size("ct_hash")).alias("cts"),
                                             F.max("doc").alias("max_doc")).collect()
        counts = {r["row_kind"]: (int(r["n"]), int(r["fps"] or 0), r["max_doc"], int(r["cts"] or 0))
                  for r in stats}
        n_docs, n_fps, max_id, n_cts = counts.get("d", (0, 0, None, 0))
        n_skipped = counts.get("s", (0, 0, None, 0))[0]
        if max_id is not None and max_id > _MAX_DOC:
            raise WinnowError("more than 2**31 - 1 listed files: split the list into several jobs")
        docs = rows.where("row_kind = 'd'")
        # a submission's id (sub) is its first document's, over the whole list (each batch's
        # store numbered only its own files)
        first = F.min("doc").over(Window.partitionBy("submission"))
        docs.select(*[first.cast("int").alias("sub") if c == "sub" else F.col(f"`{c}`") for c in doc_cols]) \
            .write.mode("overwrite").parquet(base + "/documents")
        fps = docs.selectExpr("doc", "inline(arrays_zip(fp_hash, fp_pos))") \
            .selectExpr("fp_hash AS hash", "doc", "fp_pos AS pos",
                        f"CAST({bucket_sql(buckets, 'fp_hash')} AS INT) AS bucket")
        fps.write.mode("overwrite").partitionBy("bucket").parquet(base + "/fingerprints")
        if not n_fps:  # an empty table still gets a schema (as in the DuckDB export)
            fps.drop("bucket").limit(0).coalesce(1).write.mode("overwrite").parquet(base + "/fingerprints/bucket=0")
        cts = docs.selectExpr("explode(ct_hash) AS hash", "doc")
        (cts if n_cts else cts.limit(0).coalesce(1)).write.mode("overwrite").parquet(base + "/code_text_hashes")
        if texts:
            docs.select("doc", "text").write.mode("overwrite").parquet(base + "/document_texts")
        skipped_examples = []
        if n_skipped:
            skipped = rows.where("row_kind = 's'").select("path", "reason")
            skipped.coalesce(1).write.mode("overwrite").parquet(base + "/_skipped")
            skipped_examples = [(r[0], r[1]) for r in skipped.limit(20).collect()]
        rows.unpersist()
    finally:
        if previous is None:
            spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
        else:
            spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", previous)
    spark.createDataFrame(sorted(settings.items()), "key string, value string").coalesce(1) \
        .write.mode("overwrite").parquet(base + "/settings")
    tables = {"documents": n_docs, "fingerprints": n_fps, "settings": len(settings), "code_text_hashes": n_cts}
    if texts:
        tables["document_texts"] = n_docs
    from ..version import __version__

    manifest = {
        "format": FORMAT, "version": FORMAT_VERSION, "winnowdb": __version__,
        "written_by": "winnowdb spark fingerprint",
        "written_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "buckets": int(buckets), "bucket_expression": bucket_sql(buckets), "settings": settings,
        "tables": {name: {"rows": rows_, "partitioned_by": "bucket" if name == "fingerprints" else None}
                   for name, rows_ in tables.items()},
        "skipped": n_skipped,
    }
    _write_text(spark, base + "/" + MANIFEST, json.dumps(manifest, indent=2) + "\n")
    manifest["skipped_examples"] = skipped_examples
    return manifest


def pairs(spark, export_dir: str, out: str | None = None, *, max_df: int | None = None, min_shared: int = 1,
          new_label: str | None = None, overwrite: bool = False, registered: bool = False,
          min_score: float | None = None):
    """``sql/pairs.sql`` on Spark over an export; written to ``out`` (Parquet) when given.

    ``max_df`` None or 0 means the index's default (the default_max_df view). With
    ``registered`` the export's views are already there (``winnowdb.spark.sql.register_export``).
    Returns (DataFrame, max_df used).
    """
    if out is not None:
        _check_out(spark, out, overwrite)
    if not registered:
        ssql.register_export(spark, export_dir)
        ssql.cache_views(spark)
    cap = int(max_df) if max_df and int(max_df) > 0 else ssql.default_max_df(spark)
    df = ssql.run(spark, "pairs", max_df=cap, min_shared=max(1, int(min_shared)), new_label=new_label,
                  min_score=float(min_score) if min_score is not None else None)
    if out is not None:
        df.write.mode("overwrite").parquet(str(out))
    return df, cap
