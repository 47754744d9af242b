-- meta_delete.sql: remove one bookkeeping value.
-- DuckDB only: writes the DuckDB index's bookkeeping.
-- Parameters: $key (VARCHAR).
DELETE FROM meta WHERE key = $key
