-- labels.sql: the labels of the indexed documents (add --label), sorted.
-- DuckDB only: the CLI's notes on a DuckDB index.
-- Columns: label.
SELECT DISTINCT label FROM documents WHERE label IS NOT NULL ORDER BY label
