-- countable_hashes.sql: which of some sides' fingerprint hashes count in a comparison's scores?
-- The same exclusions as pairs.sql and query_found.sql, so `compare` reports the containment and
-- resemblance `pairs` and `query` report: hashes of boilerplate documents and hashes in more than
-- $max_df submissions (shared_hashes keeps their df) count neither as shared nor in a side's size.
-- The too common ones are read from common_hashes, the few shared hashes above the default max-df
-- ($common_floor), when $max_df is at least that (as query_found.sql: DuckDB then prunes the
-- lookup of the sides' hashes in shared_hashes, whose condition is false); else from shared_hashes.
-- The sides' hashes are the relation side_hashes(hash), registered by the caller.
-- Parameters: $max_df (BIGINT), $common_floor (BIGINT: the max-df common_hashes holds the hashes
-- above; larger than any $max_df where it holds none). Columns: hash (each once).
WITH side AS (
    SELECT DISTINCT hash FROM side_hashes
),
common AS (
    SELECT hash FROM common_hashes WHERE hash IN (SELECT hash FROM side) AND df > $max_df AND $max_df >= $common_floor
    UNION
    SELECT hash FROM shared_hashes WHERE hash IN (SELECT hash FROM side) AND df > $max_df AND $max_df < $common_floor
    UNION
    SELECT hash FROM boilerplate_hashes WHERE hash IN (SELECT hash FROM side)
)
SELECT hash FROM side WHERE hash NOT IN (SELECT hash FROM common)
