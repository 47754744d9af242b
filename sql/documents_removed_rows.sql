-- documents_removed_rows.sql: how many removed documents still have fingerprint rows to delete,
-- and how many rows they had (store/purge.py; `check` notes them).
-- DuckDB only: the DuckDB index's bookkeeping of a removal.
-- Columns: documents, fingerprints.
SELECT COUNT(*) AS documents, COALESCE(SUM(fingerprints), 0) AS fingerprints FROM documents_removed
