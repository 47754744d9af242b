-- meta_insert.sql: store one bookkeeping value (meta_delete.sql first removes an old one).
-- DuckDB only: writes the DuckDB index's bookkeeping.
-- Parameters: $key (VARCHAR), $value (VARCHAR).
INSERT INTO meta VALUES ($key, $value)
