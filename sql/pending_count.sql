-- pending_count.sql: how many documents a killed add committed without their fingerprints.
-- DuckDB only: the DuckDB index's bookkeeping of an add.
-- Columns: documents.
SELECT COUNT(*) AS documents FROM documents_pending
