-- gone_document_rows.sql: how many documents are about to be removed (or replaced) and how many
-- fingerprint rows they hold: the most rows their removal deletes from each table
-- (store/writes.py: room_for_deletes).
-- DuckDB only: the DuckDB index's bookkeeping of a removal.
-- Reads the relation gone_docs(doc) the caller registers. Columns: documents, fingerprints.
SELECT COUNT(*) AS documents, COALESCE(SUM(fingerprints), 0) AS fingerprints
FROM documents WHERE doc IN (SELECT doc FROM gone_docs)
