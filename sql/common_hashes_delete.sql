-- common_hashes_delete.sql: forget the common hashes among some hashes whose document frequencies
-- are counted again (common_hashes_insert.sql stores them anew, as shared_hashes_delete.sql and
-- shared_hashes_insert.sql do for shared_hashes).
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation hashes_wanted(hash) the caller registers.
-- Parameters: $low, $high (BIGINT: a range holding every hash wanted).
DELETE FROM common_hashes WHERE hash BETWEEN $low AND $high AND hash IN (SELECT hash FROM hashes_wanted)
