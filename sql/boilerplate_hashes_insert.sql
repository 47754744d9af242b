-- boilerplate_hashes_insert.sql: remember the hashes of new boilerplate documents (once each).
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation new_boilerplate(hash) the caller registers (distinct hashes).
-- Parameters: $low, $high (BIGINT: a range holding every new hash).
INSERT INTO boilerplate_hashes
SELECT hash FROM new_boilerplate
WHERE hash NOT IN (SELECT hash FROM boilerplate_hashes WHERE hash BETWEEN $low AND $high)
