-- migrate_3_to_4.sql: schema 3 -> 4, the common hashes kept apart (issue 20).
-- DuckDB only: writes the DuckDB index.
-- Adds the empty common_hashes table; the migration then fills it for the remembered default
-- max-df (common_hashes_fill.sql) when the index has one, else the next write does.
CREATE TABLE IF NOT EXISTS common_hashes (
    hash BIGINT NOT NULL,
    df INTEGER NOT NULL
)
