-- hash_df_before_add.sql: the document frequency (submissions) of some hashes over the stored
-- ordinary documents, while shared_hashes is exact for them (an add's new rows, before they
-- count); a hash not stored has no row.
-- DuckDB only: how an add keeps the DuckDB index's statistics (store/stats.py). The df of a hash
-- in two or more submissions is the one shared_hashes keeps; only the others, each in one
-- submission at most, are counted from the stored rows (hash_df_stored.sql counts every hash:
-- at 1,000,000 documents the rows of hashes in thousands of documents were most of an add's
-- statistics). Fingerprints are stored ordered by hash (store/runs.py), so the range $low..$high
-- keeps both scans to the row groups that can hold the hashes.
-- Reads the relation hashes_wanted(hash) the caller registers.
-- Parameters: $low, $high (BIGINT: the smallest and largest hash wanted, or a range holding them).
-- Columns: hash, df.
WITH kept AS MATERIALIZED (  -- computed once: its hashes are also left out of the count below
    SELECT s.hash, s.df
    FROM shared_hashes s
    WHERE s.hash BETWEEN $low AND $high AND s.hash IN (SELECT hash FROM hashes_wanted)
)
SELECT hash, df FROM kept
UNION ALL
SELECT f.hash, COUNT(DISTINCT d.sub) AS df
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE f.hash BETWEEN $low AND $high
  AND f.hash IN (SELECT hash FROM hashes_wanted WHERE hash NOT IN (SELECT hash FROM kept))
  AND d.kind = 'document'
GROUP BY f.hash
