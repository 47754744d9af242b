-- views_stored.sql: the definitions DuckDB keeps of the index's own stored (not temporary) views,
-- for the digest that tells whether they are this winnowdb version's (store/schema.py).
-- DuckDB only: reads DuckDB's catalog (duckdb_views()).
-- Columns: view_name, sql.
SELECT view_name, sql
FROM duckdb_views()
WHERE NOT internal AND NOT temporary AND database_name = current_database() AND schema_name = 'main'
ORDER BY view_name
