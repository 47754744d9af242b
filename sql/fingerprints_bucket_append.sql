-- fingerprints_bucket_append.sql: append one bucket's rows, copied aside into the temporary table
-- merging_bucket (fingerprints_of_bucket.sql or fingerprints_of_bucket_from.sql), to the
-- fingerprints, ordered by hash (store/merge.py; DuckDB appends them in this order).
-- DuckDB only: rewrites the DuckDB index's storage.
INSERT INTO fingerprints
SELECT hash, doc, pos FROM merging_bucket ORDER BY hash, doc, pos
