-- documents_all.sql: every document row, in id order (the Spark fingerprint job ships them).
-- DuckDB only: ships rows out of the Spark job's private DuckDB index.
SELECT * FROM documents ORDER BY doc
