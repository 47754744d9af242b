-- shared_hashes_of_bucket.sql: every row of shared_hashes in one bucket of hashes (an upgrade
-- rewrites the table in the row groups of this winnowdb: copied aside, deleted and appended
-- again ordered by hash, shared_hashes_bucket_append.sql, a bucket per transaction:
-- store/merge.py).
-- DuckDB only: rewrites the DuckDB index's storage.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash). Columns: hash, df.
SELECT hash, df FROM shared_hashes WHERE hash BETWEEN $low AND $high
