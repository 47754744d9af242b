-- fingerprints_bucket_delete_from.sql: delete the fingerprint rows of one bucket of hashes that
-- belong to the documents from one id up (a merge of the newest runs appends them again, ordered,
-- in the same transaction: store/merge.py).
-- DuckDB only: rewrites the DuckDB index's storage.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash), $doc (INTEGER: the
-- smallest document id of the runs merged).
DELETE FROM fingerprints WHERE hash BETWEEN $low AND $high AND doc >= $doc
