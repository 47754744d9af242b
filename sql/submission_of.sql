-- submission_of.sql: the submission an indexed file belongs to, or that a name is (a query of an
-- indexed file or submission does not find itself).
-- DuckDB only: the read path of a DuckDB index (Spark's query job finds the submission itself).
-- Parameters: $name (VARCHAR: a resolved path or a submission name). Columns: submission.
SELECT submission FROM documents WHERE path = $name OR submission = $name LIMIT 1
