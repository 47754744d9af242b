-- insert_imported_texts.sql: store the texts an import read back (the empty text where it could
-- not: the index's mark of a text it does not hold).
-- DuckDB only: builds a DuckDB index from an export.
-- Reads the relation imported_texts(doc, text) the caller registers.
INSERT INTO document_texts SELECT doc, text FROM imported_texts
