-- fingerprints_by_document.sql: every fingerprint row of the documents, in document order, then
-- position (the Spark fingerprint job cuts them into one list per document).
-- DuckDB only: ships rows out of the Spark job's private DuckDB index.
-- Columns: hash, pos.
SELECT f.hash, f.pos
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
ORDER BY d.doc, f.pos, f.hash
