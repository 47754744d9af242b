-- insert_pending_documents.sql: commit a batch of an add's documents, pending until the add stores
-- their fingerprints.
-- DuckDB only: writes the DuckDB index.
-- Reads the relation new_documents (the documents_pending table's columns, in order) the caller registers.
INSERT INTO documents_pending SELECT * FROM new_documents
