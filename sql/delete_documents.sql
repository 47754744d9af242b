-- delete_documents.sql: remove documents with their fingerprints and texts (remove, and a
-- changed file replaced by add). Reads the relation gone_docs(doc) the caller registers.
-- DuckDB only: writes the DuckDB index.
DELETE FROM fingerprints WHERE doc IN (SELECT doc FROM gone_docs);
DELETE FROM document_texts WHERE doc IN (SELECT doc FROM gone_docs);
DELETE FROM documents WHERE doc IN (SELECT doc FROM gone_docs);
