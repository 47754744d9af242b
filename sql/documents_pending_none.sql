-- documents_pending_none.sql: no pending documents, with the columns of documents_pending.
-- Read as the documents_pending relation of an export that does not hold that table (one written
-- by `winnowdb spark fingerprint`, which never leaves a document half added), on DuckDB or Spark.
SELECT d.*, CAST(NULL AS INTEGER) AS replaces
FROM documents d
WHERE 1 = 0
