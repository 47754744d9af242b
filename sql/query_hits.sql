-- query_hits.sql: which indexed submissions share passages with one query document, best first.
-- The query's fingerprints are the relation query_fingerprints(hash); the query may itself be
-- indexed (then $exclude names its submission so it does not find itself).
-- The same exclusions as pairs.sql: boilerplate hashes, and hashes in more than $max_df
-- submissions (their df is kept in shared_hashes; a hash not there is in at most one), count
-- neither as shared nor in the query's size. Only the index's occurrences of the query's usable
-- hashes are read: fingerprints are stored ordered by hash, so DuckDB reads the row groups that
-- can hold them. An indexed query looks up only its hashes kept in shared_hashes: any other is
-- in its own submission alone, which it does not report. The hits' sizes come next (query_hit_sizes.sql): they need the hits' own
-- hashes, which the caller gets from their texts (or hit_hashes_stored.sql).
-- Parameters: $max_df (BIGINT), $exclude (VARCHAR or NULL), $min_shared (BIGINT), $top (BIGINT:
-- how many hits to return, best first; NULL for all).
-- Columns: sub, submission, shared, query_fingerprints (the query's usable hashes).
WITH q AS (
    SELECT DISTINCT hash FROM query_fingerprints
),
q_common AS (  -- the query's hashes that do not count
    SELECT hash FROM shared_hashes WHERE hash IN (SELECT hash FROM q) AND df > $max_df
    UNION
    SELECT hash FROM boilerplate_hashes WHERE hash IN (SELECT hash FROM q)
),
q_usable AS (
    SELECT hash FROM q WHERE hash NOT IN (SELECT hash FROM q_common)
),
q_lookup AS (  -- the hashes that can be found in another submission
    SELECT hash FROM q_usable
    WHERE $exclude IS NULL OR hash IN (SELECT hash FROM shared_hashes)
),
occurrences AS (
    SELECT DISTINCT f.hash, d.sub, d.submission
    FROM fingerprints f
    JOIN documents d ON d.doc = f.doc
    WHERE f.hash IN (SELECT hash FROM q_lookup) AND d.kind = 'document'
),
hits AS (
    SELECT sub, MIN(submission) AS submission, COUNT(*) AS shared
    FROM occurrences
    WHERE $exclude IS NULL OR submission <> $exclude
    GROUP BY sub
    HAVING COUNT(*) >= $min_shared
),
ranked AS (  -- the ranking is by containment, shared / the query's size: by shared
    SELECT sub, submission, shared, ROW_NUMBER() OVER (ORDER BY shared DESC, submission) AS rnk
    FROM hits
)
SELECT r.sub, r.submission, r.shared, (SELECT COUNT(*) FROM q_usable) AS query_fingerprints
FROM ranked r
WHERE $top IS NULL OR r.rnk <= $top
ORDER BY r.rnk
