-- pending_documents.sql: the documents an add has committed whose fingerprints are not stored yet,
-- the older document each replaces (-1: none), and its distinct hashes (-1: a huge document's,
-- counted once its rows are stored).
-- DuckDB only: the DuckDB index's bookkeeping of an add.
-- Columns: doc, replaces, hashes.
SELECT doc, COALESCE(replaces, -1) AS replaces, hashes FROM documents_pending ORDER BY doc
