-- check_fingerprint_counts.sql: documents whose recorded fingerprint count differs from the
-- fingerprint rows stored for them (`winnowdb check`): a document stored incompletely.
-- Columns: doc, path, recorded, stored. No rows = healthy.
SELECT d.doc, d.path, d.fingerprints AS recorded, COALESCE(f.stored, 0) AS stored
FROM documents d
LEFT JOIN (
    SELECT doc, COUNT(*) AS stored
    FROM fingerprints
    GROUP BY doc
) f ON f.doc = d.doc
WHERE d.fingerprints <> COALESCE(f.stored, 0)
ORDER BY d.doc
