-- fingerprints_removed_delete.sql: delete the fingerprint rows of removed documents
-- (documents_removed) in one span of hash buckets (store/purge.py: a transaction per span, a
-- checkpoint between, so that DuckDB never pins the deletes of the whole table at once).
-- Fingerprints are stored ordered by hash, so the range reads only the row groups of the span.
-- DuckDB only: writes the DuckDB index.
-- Parameters: $low, $high (BIGINT: the span's smallest and largest hash).
DELETE FROM fingerprints
WHERE hash BETWEEN $low AND $high AND doc IN (SELECT doc FROM documents_removed)
