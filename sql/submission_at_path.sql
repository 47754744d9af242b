-- submission_at_path.sql: the submission of the indexed file at one path (a query of an indexed
-- file does not find its own submission), found through the index of documents.path.
-- DuckDB only: the read path of a DuckDB index (Spark's query job finds the submission itself).
-- Parameters: $name (VARCHAR: a resolved path). Columns: submission.
SELECT submission FROM documents WHERE path = $name
