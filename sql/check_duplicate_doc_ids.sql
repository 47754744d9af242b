-- check_duplicate_doc_ids.sql: document ids used by more than one row of documents
-- (`winnowdb check`). Fingerprints and texts are joined to documents by this id.
-- Columns: doc, copies. No rows = healthy.
SELECT doc, COUNT(*) AS copies
FROM documents
GROUP BY doc
HAVING COUNT(*) > 1
ORDER BY doc
