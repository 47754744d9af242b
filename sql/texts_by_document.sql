-- texts_by_document.sql: every document's original text, in id order (NULL where none is stored).
-- DuckDB only: ships rows out of the Spark job's private DuckDB index.
-- Columns: doc, text.
SELECT d.doc, t.text FROM documents d LEFT JOIN document_texts t ON t.doc = d.doc ORDER BY d.doc
