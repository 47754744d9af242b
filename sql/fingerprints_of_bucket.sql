-- fingerprints_of_bucket.sql: every fingerprint row of one bucket of hashes (a merge of the runs
-- copies them aside, deletes them and appends them again ordered, fingerprints_bucket_append.sql:
-- store/merge.py). Every run's rows of the bucket are read from the few row groups that can hold
-- them; rows of pending documents are moved as they are. Not ordered here: copying the rows aside
-- and ordering them in the append took 0.8 s for a bucket of 8.9M rows at 1,000,000 documents,
-- where one statement that copied them ordered took 1.3 s (bench/RESULTS.md, Scale).
-- DuckDB only: rewrites the DuckDB index's storage.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash).
SELECT hash, doc, pos
FROM fingerprints
WHERE hash BETWEEN $low AND $high
