-- common_hashes_insert.sql: store the hashes among newly counted document frequencies that are in
-- more than $max_df submissions (the max-df common_hashes is kept for, meta.common_hashes_max_df).
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation new_shared_hashes(hash, df) the caller registers.
-- Parameters: $max_df (BIGINT).
INSERT INTO common_hashes SELECT hash, df FROM new_shared_hashes WHERE df > $max_df ORDER BY hash
