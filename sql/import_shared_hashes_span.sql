-- import_shared_hashes_span.sql: the shared_hashes rows of one bucket of hashes of an imported
-- index, counted from its documents and fingerprints (winnowdb import). One statement over the
-- whole table grouped 405M rows at once at 1,000,000 documents (73 s of the import for its
-- statistics, a 9.7 GB peak); a bucket at a time (store/buckets.py), each a read of the row
-- groups of its range (the rows are imported ordered by hash), and appended in hash order.
-- DuckDB only: fills the DuckDB index's own tables, in the caller's transaction.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash).
INSERT INTO shared_hashes
SELECT f.hash, COUNT(DISTINCT d.sub) AS df
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document' AND f.hash BETWEEN $low AND $high
GROUP BY f.hash
HAVING COUNT(DISTINCT d.sub) >= 2
ORDER BY f.hash
