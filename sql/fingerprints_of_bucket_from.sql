-- fingerprints_of_bucket_from.sql: the fingerprint rows of one bucket of hashes that belong to the
-- documents from one id up (a merge of the newest runs copies them aside, deletes them and
-- appends them again ordered, after the older runs' rows, which stay: store/merge.py). The
-- bucket's row groups of every run are read; the older runs' rows are left out by their doc.
-- Not ordered here (as fingerprints_of_bucket.sql): ordered in one statement, the copy of a bucket
-- of 178,000 rows took 0.34 s at 1,000,000 documents, against 0.02 s copied then ordered.
-- DuckDB only: rewrites the DuckDB index's storage.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash), $doc (INTEGER: the
-- smallest document id of the runs merged).
SELECT hash, doc, pos
FROM fingerprints
WHERE hash BETWEEN $low AND $high AND doc >= $doc
