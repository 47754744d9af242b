-- documents_by_path.sql: which of some paths are indexed, and as what.
-- DuckDB only: add's bookkeeping on the DuckDB index.
-- Reads the relation wanted_paths(path) the caller registers.
-- Columns: path, doc, content_hash, kind, bytes, mtime_ns, ctime_ns, label, submission.
SELECT d.path, d.doc, d.content_hash, d.kind, d.bytes, d.mtime_ns, d.ctime_ns, d.label, d.submission
FROM documents d
JOIN wanted_paths w ON w.path = d.path
