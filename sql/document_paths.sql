-- document_paths.sql: every indexed document's id and path (remove matches paths and folders).
-- DuckDB only: remove, on a DuckDB index.
-- Columns: doc, path.
SELECT doc, path FROM documents
