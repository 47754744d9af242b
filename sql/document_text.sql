-- document_text.sql: one document's path and original text.
-- DuckDB only: the read path of a DuckDB index (stats).
-- Parameters: $doc (INTEGER). Columns: path, text.
SELECT d.path, t.text FROM documents d JOIN document_texts t ON t.doc = d.doc WHERE d.doc = $doc
