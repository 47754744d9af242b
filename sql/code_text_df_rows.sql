-- code_text_df_rows.sql: about how many hashes code_text_df keeps, as DuckDB's catalog counts its
-- rows (no scan): text_df.recount counts the whole table again when a write's
-- documents touch a large share of them.
-- DuckDB only: the DuckDB index's catalog.
-- Columns: rows.
SELECT COALESCE(MAX(estimated_size), 0) AS rows
FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'code_text_df'
