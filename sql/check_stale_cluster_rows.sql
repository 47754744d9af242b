-- check_stale_cluster_rows.sql: rows of the clusters snapshot whose document is no longer indexed
-- (`winnowdb check`; run only when the clusters table exists). Removing a document deletes its
-- clusters rows; an index written by an older winnowdb may still hold some. Not damage: the next
-- `winnowdb clusters` run rewrites the table. Columns: stale_rows (0 = none).
SELECT COUNT(*) AS stale_rows
FROM clusters c
WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.doc = c.doc)
