-- ordinary_documents.sql: the ids of every ordinary document (not boilerplate), in order.
-- DuckDB only: the read path of a DuckDB index (sketches, clusters).
-- Columns: doc.
SELECT doc FROM documents WHERE kind = 'document' ORDER BY doc
