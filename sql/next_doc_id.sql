-- next_doc_id.sql: the id of the next new document: above every id this index has ever given
-- (documents, pending ones, and the highest id removed, remembered in meta), so an id is never reused.
-- DuckDB only: add's bookkeeping on the DuckDB index.
-- Columns: doc.
SELECT GREATEST(COALESCE((SELECT MAX(doc) FROM documents), 0),
                COALESCE((SELECT MAX(doc) FROM documents_pending), 0),
                COALESCE((SELECT MAX(TRY_CAST(value AS BIGINT)) FROM meta WHERE key = 'max_removed_doc'), 0))
       + 1 AS doc
