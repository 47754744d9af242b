-- table_columns.sql: every column of the tables in the main schema, with its type (check compares
-- them with what create_tables.sql makes).
-- DuckDB only: the DuckDB index's catalog (winnowdb check).
-- Columns: table_name, column_name, data_type.
SELECT table_name, column_name, data_type
FROM information_schema.columns
WHERE table_schema = 'main'
ORDER BY table_name, ordinal_position
