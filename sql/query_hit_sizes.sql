-- query_hit_sizes.sql: the hits of query_hits.sql with their sizes and scores, best score first.
-- Reads the relations query_hit_rows(sub, submission, shared, query_fingerprints) (query_hits.sql's
-- rows), hit_hashes(sub, hash) (the hits' own fingerprint hashes) and hit_text(sub,
-- text_containment, t) (text_evidence.sql's rows: the text family's evidence, for a code query
-- in an index with the family; else empty), registered by the caller.
-- A hit's size is its distinct hashes less the excluded ones (as in pairs.sql): boilerplate
-- hashes, and hashes in more than $max_df submissions.
-- The hits hold thousands of hashes, which would reach nearly every row group of shared_hashes;
-- the few hashes above $max_df are read instead from common_hashes (kept for the default max-df,
-- $common_floor: 1M documents, 2M rows against 41M), or with one scan of shared_hashes' df
-- column when $max_df is below it (MATERIALIZED: a planning hint, so that the read is not driven
-- by the hits' hashes; dropped for Spark).
-- The score is pairs.sql's for the pair (query, hit), docs/score.md: S = the larger of containment
-- and contained; with the text family's T, max(S^4 (0.9 + 0.1 T), T); otherwise S.
-- Parameters: $max_df (BIGINT), $common_floor (BIGINT: the max-df common_hashes holds the hashes
-- above; larger than any $max_df where it holds none).
-- Columns: path (the hit's submission), shared, query_fingerprints, fingerprints,
-- containment (shared / query's size: how much of the query is found in the hit),
-- contained (shared / hit's size), resemblance (shared / union), each 0 when it would divide by
-- 0 (a query without code token fingerprints: its hits come from query_text_found.sql, shared 0,
-- scored T), text_containment (the text family's larger containment, unweighted; NULL without
-- it), score.
WITH hh AS (
    SELECT DISTINCT sub, hash FROM hit_hashes
),
too_common AS MATERIALIZED (  -- every hash in more than $max_df submissions
    SELECT hash FROM common_hashes WHERE df > $max_df AND $max_df >= $common_floor
    UNION ALL
    SELECT hash FROM shared_hashes WHERE df > $max_df AND $max_df < $common_floor
),
common AS (
    SELECT hash FROM too_common WHERE hash IN (SELECT hash FROM hh)
    UNION
    SELECT hash FROM boilerplate_hashes WHERE hash IN (SELECT hash FROM hh)
),
sizes AS (
    SELECT sub, COUNT(*) AS n FROM hh WHERE hash NOT IN (SELECT hash FROM common) GROUP BY sub
),
scored AS (
    SELECT h.submission, h.shared, h.query_fingerprints, COALESCE(s.n, 0) AS n,
           COALESCE(CAST(h.shared AS DOUBLE) / NULLIF(h.query_fingerprints, 0), 0) AS containment,
           COALESCE(CAST(h.shared AS DOUBLE) / NULLIF(s.n, 0), 0) AS contained,
           COALESCE(CAST(h.shared AS DOUBLE) / NULLIF(h.query_fingerprints + COALESCE(s.n, 0) - h.shared, 0), 0)
               AS resemblance,
           x.text_containment, x.t
    FROM query_hit_rows h
    LEFT JOIN sizes s ON s.sub = h.sub
    LEFT JOIN hit_text x ON x.sub = h.sub
)
SELECT submission AS path, shared, query_fingerprints, n AS fingerprints, containment, contained, resemblance,
       text_containment,
       -- rounded: sums of weights differ in their last bits with the order threads add them in
       COALESCE(ROUND(GREATEST(POWER(GREATEST(containment, contained), 4) * (0.9 + 0.1 * t), t), 9),
                GREATEST(containment, contained)) AS score
FROM scored
WHERE shared > 0 OR t > 0  -- a hit by the text family alone needs a k-gram that weighs more than 0
ORDER BY score DESC, containment DESC, shared DESC, submission
