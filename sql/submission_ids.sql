-- submission_ids.sql: the ids of some submissions, by name (an add gives a new file of an
-- existing submission that submission's id).
-- DuckDB only: add's bookkeeping on the DuckDB index.
-- Reads the relation wanted_names(name) the caller registers. Columns: submission, sub.
SELECT DISTINCT submission, sub FROM documents WHERE submission IN (SELECT name FROM wanted_names)
