-- table_keys.sql: the primary keys, unique constraints and indexes of the tables in the main
-- schema (check compares them with what create_tables.sql makes: a table rebuilt without its key
-- would let duplicate ids or settings in; a path's one row is kept by add and checked by
-- check_duplicate_paths.sql; without documents_path, looking a path up reads every path).
-- DuckDB only: the DuckDB index's catalog (winnowdb check).
-- Columns: table_name, constraint_type ('PRIMARY KEY', 'UNIQUE' or 'INDEX'), columns
-- (comma-separated; an index's expressions).
SELECT table_name, constraint_type, array_to_string(constraint_column_names, ',') AS columns
FROM duckdb_constraints()
WHERE schema_name = 'main' AND database_name = current_database()
  AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')
UNION ALL
SELECT table_name, 'INDEX', trim(expressions, '[]')
FROM duckdb_indexes()
WHERE schema_name = 'main' AND database_name = current_database() AND NOT is_primary AND NOT is_unique
ORDER BY 1, 2, 3
