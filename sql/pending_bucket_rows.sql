-- pending_bucket_rows.sql: the distinct (hash, doc) rows of one hash bucket stored for pending
-- documents: an add's rows, stored bucket by bucket before its documents are indexed, read back
-- to bring the statistics up to date (store/runs.py, store/stats.py).
-- DuckDB only: the DuckDB index's bookkeeping of an add.
-- Fingerprints are stored ordered by hash, so the range $low..$high keeps the scan to the row
-- groups that can hold the bucket.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash).
-- Columns: hash, doc.
SELECT DISTINCT f.hash, f.doc
FROM fingerprints f
WHERE f.hash BETWEEN $low AND $high
  AND f.doc IN (SELECT doc FROM documents_pending)
