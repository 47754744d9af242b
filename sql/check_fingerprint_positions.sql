-- check_fingerprint_positions.sql: fingerprints whose position lies outside their document
-- (`winnowdb check`): pos must be a k-gram index of its normalized text (0 <= pos < units).
-- Columns: doc, path, bad_rows. No rows = healthy.
SELECT d.doc, d.path, COUNT(*) AS bad_rows
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE f.pos < 0
   OR f.pos >= d.units
GROUP BY d.doc, d.path
ORDER BY d.doc
