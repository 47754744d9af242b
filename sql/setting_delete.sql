-- setting_delete.sql: remove one setting.
-- DuckDB only: writes the DuckDB index's settings.
-- Parameters: $key (VARCHAR).
DELETE FROM settings WHERE key = $key
