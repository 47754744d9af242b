-- pending_bucket_rows.sql: the fingerprint rows of one hash bucket stored for pending documents
-- (an add's rows, stored bucket by bucket before its documents are indexed), read back to bring
-- the statistics up to date (store/runs.py, store/stats.py).
-- DuckDB only: the DuckDB index's bookkeeping of an add.
-- Fingerprints are stored ordered by hash and each add's rows carry new document ids, so the two
-- ranges keep the scan to the row groups this add stored for the bucket. The caller keeps the rows
-- of pending documents (every document in the id range is one, as ids only grow) and knows which
-- rows repeat a (hash, doc) pair: no DISTINCT here (it cost four times the scan).
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash), $first_doc, $last_doc
-- (INTEGER: the smallest and largest pending document id).
-- Columns: hash, doc.
SELECT f.hash, f.doc
FROM fingerprints f
WHERE f.hash BETWEEN $low AND $high
  AND f.doc BETWEEN $first_doc AND $last_doc
