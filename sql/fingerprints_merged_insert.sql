-- fingerprints_merged_insert.sql: append one bucket of hashes of the fingerprints, ordered by
-- hash, to the table a merge fills (store/merge.py). Every run's rows of the bucket are read from
-- the few row groups that can hold them; rows of pending documents are copied as they are.
-- DuckDB only: rewrites the DuckDB index's storage.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash).
INSERT INTO fingerprints_merged
SELECT hash, doc, pos, start_offset, end_offset
FROM fingerprints
WHERE hash BETWEEN $low AND $high
ORDER BY hash, doc, pos
