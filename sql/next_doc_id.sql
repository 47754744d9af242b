-- next_doc_id.sql: the id of the next new document: above every id this index has ever given
-- (the highest id removed is remembered in the setting max_removed_doc), so an id is never reused.
-- DuckDB only: add's bookkeeping on the DuckDB index.
-- Columns: doc.
SELECT GREATEST(COALESCE((SELECT MAX(doc) FROM documents), 0),
                COALESCE((SELECT MAX(TRY_CAST(value AS BIGINT)) FROM settings WHERE key = 'max_removed_doc'), 0))
       + 1 AS doc
