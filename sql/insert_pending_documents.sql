-- insert_pending_documents.sql: commit a batch of an add's documents, pending until the add stores
-- their fingerprints.
-- DuckDB only: writes the DuckDB index.
-- Reads the relation new_documents (the documents_pending table's columns, in order) the caller registers;
-- its mtime_ns and ctime_ns 0 stand for NULL (times not recorded: numpy columns have no NULL).
INSERT INTO documents_pending
SELECT * REPLACE (NULLIF(mtime_ns, 0) AS mtime_ns, NULLIF(ctime_ns, 0) AS ctime_ns) FROM new_documents
