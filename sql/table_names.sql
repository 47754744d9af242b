-- table_names.sql: the tables and views in the index's main schema.
-- DuckDB only: the DuckDB index's catalog.
-- Columns: table_name.
SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'
