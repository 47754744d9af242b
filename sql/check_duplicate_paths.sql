-- check_duplicate_paths.sql: files indexed more than once (`winnowdb check`). `add` replaces a
-- changed file's old row, so each path must appear once.
-- Columns: path, copies. No rows = healthy.
SELECT path, COUNT(*) AS copies
FROM documents
GROUP BY path
HAVING COUNT(*) > 1
ORDER BY path
