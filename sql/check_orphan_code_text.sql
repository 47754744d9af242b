-- check_orphan_code_text.sql: text family rows (code_text_hashes) that belong to no document
-- (`winnowdb check`).
-- Columns: doc, hash_rows. No rows = healthy.
SELECT t.doc, COUNT(*) AS hash_rows
FROM code_text_hashes t
WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.doc = t.doc)
  AND NOT EXISTS (SELECT 1 FROM documents_pending p WHERE p.doc = t.doc)
GROUP BY t.doc
ORDER BY t.doc
