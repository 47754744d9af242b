-- pending_documents.sql: the documents an add has committed whose fingerprints are not stored yet,
-- and the older document each replaces (-1: none).
-- DuckDB only: the DuckDB index's bookkeeping of an add.
-- Columns: doc, replaces.
SELECT doc, COALESCE(replaces, -1) AS replaces FROM documents_pending ORDER BY doc
