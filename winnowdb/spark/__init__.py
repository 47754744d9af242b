"""winnowdb on Apache Spark: the same SQL files over an index exported as Parquet.

* ``winnowdb.store.export``: ``winnowdb export --parquet DIR`` writes an index as Parquet (settings,
  documents, fingerprints partitioned by a hash bucket, and any further tables), and reads such a
  directory back into DuckDB.
* ``winnowdb.spark.session``: a SparkSession (the one spark-submit made, or a local one).
* ``winnowdb.spark.sql``: temporary views over an exported index, ``create_views.sql`` and the
  query files run through ``sqlfiles.for_spark`` with bound ``:name`` parameters.
* ``winnowdb.spark.jobs``: the distributed jobs: ``fingerprint`` (a file list fingerprinted in
  parallel with winnowdb's own fingerprinter, written in the export layout), ``pairs`` (all-vs-all
  pair counting written as Parquet), ``query``.
* ``python -m winnowdb.spark`` / ``spark-submit .../winnowdb/spark/__main__.py``: the jobs as a
  program for a cluster (docs/spark.md).

pyspark is an optional dependency (``pip install '.[spark]' in the winnowdb source folder``); nothing here imports it
until a job runs.
"""
from __future__ import annotations

__all__ = ["session", "sql", "jobs"]
