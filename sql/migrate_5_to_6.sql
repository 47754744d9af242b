-- migrate_5_to_6.sql: schema 5 -> 6, the files' times (issue 19).
-- DuckDB only: writes the DuckDB index.
-- documents and documents_pending get mtime_ns and ctime_ns, NULL for every row already there:
-- the next add reads those files once to compare their content, as before, and records their
-- times (ingest/unchanged.py); from then on an unchanged file is not read again.
ALTER TABLE documents ADD COLUMN mtime_ns BIGINT;
ALTER TABLE documents ADD COLUMN ctime_ns BIGINT;
ALTER TABLE documents_pending ADD COLUMN mtime_ns BIGINT;
ALTER TABLE documents_pending ADD COLUMN ctime_ns BIGINT;
