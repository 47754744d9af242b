-- documents_under.sql: the indexed paths below some folders.
-- DuckDB only: add's notes on a DuckDB index.
-- Reads the relation folder_roots(root) the caller registers (folder paths ending with the path
-- separator). Columns: path.
SELECT DISTINCT d.path
FROM documents d
JOIN folder_roots r ON starts_with(d.path, r.root)
