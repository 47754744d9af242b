-- code_text_by_document.sql: every document's text family hashes, in document order (the Spark
-- fingerprint job ships them as one array per document, as fingerprints_by_document.sql does).
-- DuckDB only: the Spark fingerprint job's in-memory index.
-- Columns: doc, hash.
SELECT t.doc, t.hash
FROM code_text_hashes t
JOIN documents d ON d.doc = t.doc
ORDER BY t.doc, t.hash
