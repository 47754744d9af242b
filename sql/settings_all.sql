-- settings_all.sql: every stored setting of the index.
-- Columns: key, value (both text).
SELECT key, value FROM settings
