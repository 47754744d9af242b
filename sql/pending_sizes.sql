-- pending_sizes.sql: the pending documents' ids and text lengths (for reading them back in batches).
-- DuckDB only: the DuckDB index's bookkeeping of an add.
-- Columns: doc, chars.
SELECT doc, chars FROM documents_pending ORDER BY doc
