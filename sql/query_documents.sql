-- query_documents.sql: the ordinary documents a query names: an indexed file by its path, or a
-- submission by its name (Spark's query job looks such a source up by its stored fingerprints).
-- Parameters: $path (VARCHAR: a resolved path or a submission name).
-- Columns: doc, submission.
SELECT doc, submission FROM documents WHERE (path = $path OR submission = $path) AND kind = 'document'
