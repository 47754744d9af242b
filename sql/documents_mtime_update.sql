-- documents_mtime_update.sql: record the files' times of indexed documents that an add found
-- unchanged by their content (ingest/unchanged.py: the next add need not read them).
-- DuckDB only: add's bookkeeping on the DuckDB index.
-- Reads the relation new_times(doc, mtime_ns, ctime_ns) the caller registers (0: NULL).
UPDATE documents
SET mtime_ns = NULLIF(t.mtime_ns, 0), ctime_ns = NULLIF(t.ctime_ns, 0)
FROM new_times t
WHERE documents.doc = t.doc
