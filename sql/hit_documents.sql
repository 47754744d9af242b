-- hit_documents.sql: the documents of some submissions (the hits of a query), with how they were
-- read and their texts, so their fingerprints can be computed again (fingerprints are stored
-- ordered by hash: reading one document's rows would read them all).
-- DuckDB only: the read path of a DuckDB index (Spark reads hit_hashes_stored.sql).
-- Reads the relation query_hit_rows(sub, ...) the caller registers.
-- Columns: sub, doc, path, normalizer, kind, chars, text.
SELECT d.sub, d.doc, d.path, d.normalizer, d.kind, d.chars, t.text
FROM documents d
JOIN document_texts t ON t.doc = d.doc
WHERE d.kind = 'document' AND d.sub IN (SELECT sub FROM query_hit_rows)
ORDER BY d.doc
