-- insert_documents.sql: store a batch of document rows (add, upgrade).
-- DuckDB only: writes the DuckDB index.
-- Reads the relation new_documents (the documents table's columns, in order) the caller registers.
INSERT INTO documents SELECT * FROM new_documents
