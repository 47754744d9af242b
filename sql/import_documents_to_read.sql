-- import_documents_to_read.sql: the documents an import of an export without texts reads back
-- from their files (only a file whose bytes still have the stored content hash is used).
-- DuckDB only: builds a DuckDB index from an export.
-- Columns: doc, path, content_hash, chars.
SELECT doc, path, content_hash, chars FROM documents ORDER BY doc
