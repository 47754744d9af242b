-- shared_hashes_bucket_append.sql: append one bucket's rows, copied aside into the temporary
-- table merging_bucket (shared_hashes_of_bucket.sql), to shared_hashes, ordered by hash
-- (store/merge.py).
-- DuckDB only: rewrites the DuckDB index's storage.
INSERT INTO shared_hashes SELECT hash, df FROM merging_bucket ORDER BY hash
