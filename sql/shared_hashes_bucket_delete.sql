-- shared_hashes_bucket_delete.sql: delete the rows of shared_hashes in one bucket of hashes (an
-- upgrade appends them again, ordered, in the same transaction: store/merge.py).
-- DuckDB only: rewrites the DuckDB index's storage.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash).
DELETE FROM shared_hashes WHERE hash BETWEEN $low AND $high
