-- gone_document_rows.sql: how many documents are about to be removed (or replaced), how many
-- fingerprint rows they hold, and how many rows of the text family: the most rows their removal
-- deletes from each table (store/room.py makes room in memory for what those deletes pin).
-- DuckDB only: the DuckDB index's bookkeeping of a removal.
-- Reads the relation gone_docs(doc) the caller registers.
-- Columns: documents, fingerprints, text_family.
SELECT COUNT(*) AS documents, COALESCE(SUM(fingerprints), 0) AS fingerprints,
       (SELECT COUNT(*) FROM code_text_hashes WHERE doc IN (SELECT doc FROM gone_docs)) AS text_family
FROM documents WHERE doc IN (SELECT doc FROM gone_docs)
