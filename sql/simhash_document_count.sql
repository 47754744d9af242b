-- simhash_document_count.sql: how many ordinary documents have a simhash (sizes the block layout of a Hamming search).
-- Parameters: none.
-- Columns: documents.
SELECT COUNT(*) AS documents
FROM documents
WHERE kind = 'document' AND simhash <> 0
