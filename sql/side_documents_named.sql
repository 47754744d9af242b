-- side_documents_named.sql: the ordinary documents of submissions named by their name (sides
-- given as a submission, e.g. a student's folder with `add --submission-depth`).
-- DuckDB only: the read path of a DuckDB index (query, compare, report).
-- Reads the relation side_names(name) the caller registers (submission names).
-- Columns: doc, path, submission, chars, normalizer.
SELECT doc, path, submission, chars, normalizer
FROM documents
WHERE kind = 'document' AND submission IN (SELECT name FROM side_names)
