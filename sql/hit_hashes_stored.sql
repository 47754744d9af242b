-- hit_hashes_stored.sql: the stored fingerprint hashes of some submissions (the hits of a query),
-- for query_hit_sizes.sql, where reading them is cheaper than fingerprinting their texts again
-- (Spark, which scans the fingerprints anyway).
-- Reads the relation query_hit_rows(sub, ...) the caller registers. Columns: sub, hash.
SELECT DISTINCT d.sub, f.hash
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document' AND d.sub IN (SELECT sub FROM query_hit_rows)
