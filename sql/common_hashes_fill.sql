-- common_hashes_fill.sql: fill common_hashes with every kept hash in more than $max_df submissions
-- (the default --max-df; common_hashes_clear.sql empties it first). One scan of shared_hashes.
-- DuckDB only: keeps the DuckDB index's statistics.
-- Parameters: $max_df (BIGINT).
INSERT INTO common_hashes SELECT hash, df FROM shared_hashes WHERE df > $max_df ORDER BY hash
