-- hash_df_stored.sql: the document frequency (submissions) of some hashes over the stored
-- ordinary documents; a hash not stored has no row.
-- DuckDB only: how a write keeps the DuckDB index's statistics (store/stats.py).
-- Fingerprints are stored ordered by hash (store/runs.py), so the range $low..$high keeps the
-- scan to the row groups that can hold them.
-- Reads the relation hashes_wanted(hash) the caller registers.
-- Parameters: $low, $high (BIGINT: the smallest and largest hash wanted, or a range holding them).
-- Columns: hash, df.
SELECT f.hash, COUNT(DISTINCT d.sub) AS df
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE f.hash BETWEEN $low AND $high
  AND f.hash IN (SELECT hash FROM hashes_wanted)
  AND d.kind = 'document'
GROUP BY f.hash
