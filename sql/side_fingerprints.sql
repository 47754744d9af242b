-- side_fingerprints.sql: the stored fingerprint rows of some documents, in document order.
-- The range bounds the scan's doc filter; the relation keeps exactly these documents.
-- DuckDB only: the read path of a DuckDB index (compare, report), for documents whose stored
-- text does not give their rows again (imported without texts, or code of an older tokenizer).
-- Reads the relation side_docs(doc) the caller registers.
-- Parameters: $low, $high (INTEGER: the smallest and largest id in side_docs).
-- Columns: hash, doc, pos.
SELECT hash, doc, pos
FROM fingerprints
WHERE doc BETWEEN $low AND $high AND doc IN (SELECT doc FROM side_docs)
ORDER BY doc
