-- side_documents.sql: the ordinary documents that make up some comparison sides: indexed files
-- named by path, or submissions named by their name.
-- DuckDB only: the read path of a DuckDB index (compare, report).
-- Reads the relation side_names(name) the caller registers (resolved paths or submission names).
-- Columns: doc, path, submission, chars.
SELECT doc, path, submission, chars
FROM documents
WHERE kind = 'document' AND path IN (SELECT name FROM side_names)
UNION  -- two semi-joins, not one OR of two IN tests (which DuckDB runs as two MARK joins)
SELECT doc, path, submission, chars
FROM documents
WHERE kind = 'document' AND submission IN (SELECT name FROM side_names)
ORDER BY path
