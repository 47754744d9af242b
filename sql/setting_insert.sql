-- setting_insert.sql: store one setting (setting_delete.sql first removes an old value).
-- DuckDB only: writes the DuckDB index's settings.
-- Parameters: $key (VARCHAR), $value (VARCHAR).
INSERT INTO settings VALUES ($key, $value)
