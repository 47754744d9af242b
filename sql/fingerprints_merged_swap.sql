-- fingerprints_merged_swap.sql: the merged table becomes the fingerprints table (store/merge.py;
-- run inside the transaction that checked fingerprints_merged_count.sql).
-- DuckDB only: rewrites the DuckDB index's storage.
DROP TABLE fingerprints;
ALTER TABLE fingerprints_merged RENAME TO fingerprints;
