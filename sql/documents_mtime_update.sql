-- documents_mtime_update.sql: record the files' modification times of indexed documents that an
-- add found unchanged by their content (ingest/unchanged.py: the next add need not read them).
-- DuckDB only: add's bookkeeping on the DuckDB index.
-- Reads the relation new_mtimes(doc, mtime_ns) the caller registers (mtime_ns 0: NULL).
UPDATE documents
SET mtime_ns = NULLIF(m.mtime_ns, 0)
FROM new_mtimes m
WHERE documents.doc = m.doc
