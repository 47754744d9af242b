-- import_boilerplate_hashes_span.sql: the boilerplate_hashes rows of one bucket of hashes of an
-- imported index (winnowdb import; a bucket at a time as import_shared_hashes_span.sql).
-- DuckDB only: fills the DuckDB index's own tables, in the caller's transaction.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash).
INSERT INTO boilerplate_hashes
SELECT DISTINCT f.hash
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'boilerplate' AND f.hash BETWEEN $low AND $high
ORDER BY f.hash
