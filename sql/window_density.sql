-- window_density.sql: measured fingerprint density, fingerprints per k-gram, over all documents
-- long enough to hold a k-gram (to compare with the Winnowing paper's expected 2/(w+1)).
-- Parameters: $k (BIGINT).
SELECT CAST(SUM(fingerprints) AS DOUBLE) / NULLIF(SUM(units - $k + 1), 0) AS density
FROM documents
WHERE units >= $k AND kind = 'document'
