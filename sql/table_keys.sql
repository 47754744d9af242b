-- table_keys.sql: the primary keys and unique constraints of the tables in the main schema (check
-- compares them with what create_tables.sql makes: a table rebuilt without its key would let
-- duplicate ids or settings in; a path's one row is kept by add and checked by
-- check_duplicate_paths.sql).
-- DuckDB only: the DuckDB index's catalog (winnowdb check).
-- Columns: table_name, constraint_type, columns (comma-separated).
SELECT table_name, constraint_type, array_to_string(constraint_column_names, ',') AS columns
FROM duckdb_constraints()
WHERE schema_name = 'main' AND database_name = current_database()
  AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')
ORDER BY 1, 2, 3
