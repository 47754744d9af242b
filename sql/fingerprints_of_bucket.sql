-- fingerprints_of_bucket.sql: every fingerprint row of one bucket of hashes, ordered by hash (a
-- merge of the runs copies them aside, deletes them and appends them again: store/merge.py).
-- Every run's rows of the bucket are read from the few row groups that can hold them; rows of
-- pending documents are moved as they are.
-- DuckDB only: rewrites the DuckDB index's storage.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash).
SELECT hash, doc, pos
FROM fingerprints
WHERE hash BETWEEN $low AND $high
ORDER BY hash, doc, pos
