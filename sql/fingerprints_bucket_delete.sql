-- fingerprints_bucket_delete.sql: delete every fingerprint row of one bucket of hashes (a merge
-- of the runs appends them again, ordered, in the same transaction: store/merge.py).
-- DuckDB only: rewrites the DuckDB index's storage.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash).
DELETE FROM fingerprints WHERE hash BETWEEN $low AND $high
