-- side_documents_at_paths.sql: the ordinary documents at many paths (the sides of a report), with
-- one scan of the paths rather than a lookup each.
-- DuckDB only: the read path of a DuckDB index (compare, report).
-- Reads the relation side_names(name) the caller registers (resolved paths).
-- Columns: doc, path, submission, chars, normalizer.
SELECT doc, path, submission, chars, normalizer
FROM documents
WHERE kind = 'document' AND path IN (SELECT name FROM side_names)
