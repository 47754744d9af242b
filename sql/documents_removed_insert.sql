-- documents_removed_insert.sql: record documents about to be removed whose fingerprint rows are
-- deleted after the removal commits (store/purge.py), with how many rows each has; run before
-- delete_documents.sql, in the same transaction.
-- DuckDB only: writes the DuckDB index.
-- Reads the relation gone_docs(doc) the caller registers.
INSERT INTO documents_removed
SELECT doc, fingerprints FROM documents WHERE doc IN (SELECT doc FROM gone_docs)
