-- import_distinct_hashes_span.sql: how many distinct hashes the ordinary documents of an imported
-- index hold in one bucket of hashes (winnowdb import sums the buckets into meta.distinct_hashes:
-- the buckets do not overlap).
-- DuckDB only: the DuckDB index's bookkeeping of an import.
-- Parameters: $low, $high (BIGINT: the bucket's smallest and largest hash). Columns: hashes.
SELECT COUNT(DISTINCT f.hash) AS hashes
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document' AND f.hash BETWEEN $low AND $high
