-- check_orphan_fingerprints.sql: fingerprint rows that belong to no document (`winnowdb check`).
-- They would match queries but could never be shown or removed.
-- Columns: doc, fingerprint_rows. No rows = healthy.
SELECT f.doc, COUNT(*) AS fingerprint_rows
FROM fingerprints f
WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.doc = f.doc)
GROUP BY f.doc
ORDER BY f.doc
