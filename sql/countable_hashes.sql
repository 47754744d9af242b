-- countable_hashes.sql: which of some sides' fingerprint hashes count in a comparison's scores?
-- The same exclusions as pairs.sql and query_hits.sql, so `compare` reports the containment and
-- resemblance `pairs` and `query` report: hashes of boilerplate documents and hashes in more than
-- $max_df submissions (shared_hashes keeps their df) count neither as shared nor in a side's size.
-- The sides' hashes are the relation side_hashes(hash), registered by the caller.
-- Parameters: $max_df (BIGINT). Columns: hash (each once).
WITH side AS (
    SELECT DISTINCT hash FROM side_hashes
),
common AS (
    SELECT hash FROM shared_hashes WHERE hash IN (SELECT hash FROM side) AND df > $max_df
    UNION
    SELECT hash FROM boilerplate_hashes WHERE hash IN (SELECT hash FROM side)
)
SELECT hash FROM side WHERE hash NOT IN (SELECT hash FROM common)
