-- max_removed_doc.sql: the highest document id ever removed (NULL when none was): ids are never
-- given again (next_doc_id.sql).
-- DuckDB only: the DuckDB index's bookkeeping.
-- Columns: doc.
SELECT MAX(TRY_CAST(value AS BIGINT)) AS doc FROM meta WHERE key = 'max_removed_doc'
