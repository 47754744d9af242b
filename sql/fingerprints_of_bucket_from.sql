-- fingerprints_of_bucket_from.sql: the fingerprint rows of one bucket of hashes that belong to the
-- documents from one id up, ordered by hash (a merge of the newest runs copies them aside,
-- deletes them and appends them again, after the older runs' rows, which stay: store/merge.py).
-- The bucket's row groups of every run are read; the older runs' rows are left out by their doc.
-- DuckDB only: rewrites the DuckDB index's storage.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash), $doc (INTEGER: the
-- smallest document id of the runs merged).
SELECT hash, doc, pos
FROM fingerprints
WHERE hash BETWEEN $low AND $high AND doc >= $doc
ORDER BY hash, doc, pos
