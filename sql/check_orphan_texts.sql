-- check_orphan_texts.sql: stored texts that belong to no document (`winnowdb check`).
-- Columns: doc, text_rows. No rows = healthy.
SELECT t.doc, COUNT(*) AS text_rows
FROM document_texts t
WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.doc = t.doc)
  AND NOT EXISTS (SELECT 1 FROM documents_pending p WHERE p.doc = t.doc)
GROUP BY t.doc
ORDER BY t.doc
