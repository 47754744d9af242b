-- shared_hashes_delete.sql: forget the kept document frequencies of some hashes (they are counted
-- again and stored anew by shared_hashes_insert.sql).
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation hashes_wanted(hash) the caller registers.
-- Parameters: $low, $high (BIGINT: a range holding every hash wanted).
DELETE FROM shared_hashes WHERE hash BETWEEN $low AND $high AND hash IN (SELECT hash FROM hashes_wanted)
