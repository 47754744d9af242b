-- submission_named.sql: the submission a name is, if any (a query of an indexed submission, e.g.
-- a folder added with --submission-depth, does not find itself); a scan of the submissions, run
-- only for a name that is no indexed path and no regular file (analysis/sides.py).
-- DuckDB only: the read path of a DuckDB index (Spark's query job finds the submission itself).
-- Parameters: $name (VARCHAR: a resolved path or a submission name). Columns: submission.
SELECT submission FROM documents WHERE submission = $name LIMIT 1
