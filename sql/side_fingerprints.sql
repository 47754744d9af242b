-- side_fingerprints.sql: the fingerprint rows of some documents, in document order.
-- The range lets DuckDB skip the row groups of other documents (rows are stored in document
-- order); the relation keeps exactly these documents.
-- DuckDB only: the read path of a DuckDB index (compare, report).
-- Reads the relation side_docs(doc) the caller registers.
-- Parameters: $low, $high (INTEGER: the smallest and largest id in side_docs).
-- Columns: hash, doc, pos, start_offset, end_offset.
SELECT hash, doc, pos, start_offset, end_offset
FROM fingerprints
WHERE doc BETWEEN $low AND $high AND doc IN (SELECT doc FROM side_docs)
ORDER BY doc
