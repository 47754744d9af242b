-- countable_hashes.sql: which of one side's fingerprint hashes count in a comparison's scores?
-- The same exclusions as pairs.sql and query_hits.sql, so `compare` reports the containment and
-- resemblance `pairs` and `query` report: hashes of boilerplate documents and hashes in more than
-- $max_df submissions count neither as shared nor in a side's size.
-- The side's hashes are the relation side_hashes(hash), registered by the caller.
-- Parameters: $max_df (BIGINT). Columns: hash (each once).
SELECT DISTINCT s.hash
FROM side_hashes s
LEFT JOIN boilerplate_hashes b ON b.hash = s.hash
LEFT JOIN fingerprint_df df ON df.hash = s.hash
WHERE b.hash IS NULL AND (df.df IS NULL OR df.df <= $max_df)
