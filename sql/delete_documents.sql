-- delete_documents.sql: remove documents, their texts and their code text family (remove, and a changed file replaced by
-- add; their fingerprints go first: delete_fingerprints_of.sql).
-- DuckDB only: writes the DuckDB index.
-- Reads the relation gone_docs(doc) the caller registers.
DELETE FROM document_texts WHERE doc IN (SELECT doc FROM gone_docs);
DELETE FROM documents WHERE doc IN (SELECT doc FROM gone_docs);
DELETE FROM code_text_hashes WHERE doc IN (SELECT doc FROM gone_docs);
