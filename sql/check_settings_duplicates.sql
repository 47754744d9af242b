-- check_settings_duplicates.sql: settings keys stored more than once (`winnowdb check`).
-- Each key must appear once; a duplicate makes the index's k, w, normalizer... ambiguous.
-- Columns: key, copies. No rows = healthy.
SELECT key, COUNT(*) AS copies
FROM settings
GROUP BY key
HAVING COUNT(*) > 1
ORDER BY key
