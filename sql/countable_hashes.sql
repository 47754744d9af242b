-- countable_hashes.sql: which of one side's fingerprint hashes count in a comparison's scores?
-- The same exclusions as pairs.sql and query_hits.sql, so `compare` reports the containment and
-- resemblance `pairs` and `query` report: hashes of boilerplate documents and hashes in more than
-- $max_df submissions count neither as shared nor in a side's size (counted for the side's hashes
-- only, not for the whole index).
-- The side's hashes are the relation side_hashes(hash), registered by the caller.
-- Parameters: $max_df (BIGINT). Columns: hash (each once).
WITH side AS (
    SELECT DISTINCT hash FROM side_hashes
),
occurrences AS (
    SELECT f.hash, d.submission, d.kind
    FROM fingerprints f
    JOIN side s ON s.hash = f.hash
    JOIN documents d ON d.doc = f.doc
),
df AS (
    SELECT hash, COUNT(DISTINCT submission) AS df FROM occurrences WHERE kind = 'document' GROUP BY hash
),
boilerplate AS (
    SELECT DISTINCT hash FROM occurrences WHERE kind = 'boilerplate'
)
SELECT s.hash
FROM side s
LEFT JOIN boilerplate b ON b.hash = s.hash
LEFT JOIN df ON df.hash = s.hash
WHERE b.hash IS NULL AND (df.df IS NULL OR df.df <= $max_df)
