-- tokenless_documents_any.sql: whether any indexed document has no code token fingerprint (a code
-- file shorter than one k-gram of tokens): only then can a query with token fingerprints have a
-- hit that query_text_found.sql alone finds (a scan of one small column; query_text_found.sql
-- costs ~7 ms of a 2,000-file code index's query).
-- Columns: found (BOOLEAN).
SELECT COUNT(*) > 0 AS found
FROM (SELECT 1 FROM documents WHERE kind = 'document' AND hashes = 0 LIMIT 1) AS x
