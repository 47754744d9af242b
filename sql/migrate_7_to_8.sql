-- migrate_7_to_8.sql: schema 7 -> 8, an index on the documents' paths for lookups (issue 20).
-- DuckDB only: writes the DuckDB index. `winnowdb upgrade` runs it again on an index of this schema
-- that lost the index (schema.restore_path_index; `check` reports it).
-- query, compare and report find the document at a path (side_document_at_path.sql): without an
-- index DuckDB read every stored path, 17 ms at 1,000,000 documents, 2 ms at 100,000 (string
-- zone maps keep 8 bytes, and paths share their folder). A plain index, not UNIQUE (add keeps one
-- row per path, create_tables.sql): building it takes ~0.3 s and ~40 MB at 1,000,000 documents.
CREATE INDEX IF NOT EXISTS documents_path ON documents (path);
