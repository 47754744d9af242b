-- shared_hashes_insert.sql: store document frequencies of hashes found in two or more submissions.
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation new_shared_hashes(hash, df) the caller registers.
INSERT INTO shared_hashes SELECT hash, df FROM new_shared_hashes ORDER BY hash
