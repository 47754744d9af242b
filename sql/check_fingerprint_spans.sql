-- check_fingerprint_spans.sql: fingerprints whose position or text span lies outside their
-- document (`winnowdb check`): every span must be a non-empty slice of the document's text
-- (0 <= start_offset < end_offset <= chars) and pos a k-gram index (0 <= pos < units).
-- Columns: doc, path, bad_rows. No rows = healthy.
SELECT d.doc, d.path, COUNT(*) AS bad_rows
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE f.start_offset < 0
   OR f.end_offset <= f.start_offset
   OR f.end_offset > d.chars
   OR f.pos < 0
   OR f.pos >= d.units
GROUP BY d.doc, d.path
ORDER BY d.doc
