-- insert_texts.sql: store a batch of documents' original texts.
-- DuckDB only: writes the DuckDB index.
-- Reads the relation new_texts(doc, text) the caller registers.
INSERT INTO document_texts SELECT * FROM new_texts
