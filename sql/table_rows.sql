-- table_rows.sql: how many rows each table of the index holds, as DuckDB's catalog keeps the
-- count (no table is scanned): store/room.py sizes the memory a transaction that deletes needs.
-- DuckDB only: the DuckDB index's catalog.
-- Columns: table_name, rows.
SELECT table_name, estimated_size AS rows
FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main'
