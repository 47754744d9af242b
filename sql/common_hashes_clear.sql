-- common_hashes_clear.sql: empty common_hashes, before it is filled for another max-df
-- (common_hashes_fill.sql).
-- DuckDB only: keeps the DuckDB index's statistics.
DELETE FROM common_hashes
