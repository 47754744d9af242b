-- check_duplicate_paths.sql: files indexed more than once (`winnowdb check`). `add` replaces a
-- changed file's old row, so each path must appear once (no UNIQUE index enforces it since
-- schema 5: add keeps it). Documents an interrupted add left pending count too, as the next write
-- indexes them: a pending document's path may be in documents only as the row it replaces.
-- Columns: path, copies. No rows = healthy.
SELECT path, COUNT(*) AS copies
FROM (
    SELECT d.path FROM documents d
    WHERE NOT EXISTS (SELECT 1 FROM documents_pending p WHERE p.replaces = d.doc)
    UNION ALL
    SELECT path FROM documents_pending
) AS paths
GROUP BY path
HAVING COUNT(*) > 1
ORDER BY path
