-- memory_limit_now.sql: DuckDB's memory limit in force, as it reads back ('18.7 GiB', ...).
-- DuckDB only: the DuckDB connection's configuration.
-- Columns: memory_limit.
SELECT current_setting('memory_limit') AS memory_limit
