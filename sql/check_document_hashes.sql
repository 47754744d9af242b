-- check_document_hashes.sql: documents whose recorded number of distinct fingerprint hashes
-- (documents.hashes, the sizes pairs and query divide by) differs from their stored rows.
-- Columns: doc, path, recorded, stored.
SELECT d.doc, d.path, d.hashes AS recorded, COALESCE(f.stored, 0) AS stored
FROM documents d
LEFT JOIN (SELECT doc, COUNT(DISTINCT hash) AS stored FROM fingerprints GROUP BY doc) f ON f.doc = d.doc
WHERE d.hashes <> COALESCE(f.stored, 0)
ORDER BY d.doc
