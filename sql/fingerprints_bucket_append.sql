-- fingerprints_bucket_append.sql: append one bucket's rows, copied aside in order into the temporary
-- table merging_bucket (fingerprints_of_bucket.sql), to the fingerprints (store/merge.py).
-- DuckDB only: rewrites the DuckDB index's storage.
INSERT INTO fingerprints
SELECT hash, doc, pos FROM merging_bucket
