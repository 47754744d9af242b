-- sketch_query_hits.sql: which indexed submissions resemble one query document, by Broder's MIN_s estimate?
-- The Winnowing paper (section 3.2) notes that looking up only the smallest few fingerprints of
-- a query realizes Broder's resemblance test, and looking up all of them the full containment
-- test (query_hits.sql); $s picks a point on that spectrum. The query's sketch is its $s smallest
-- usable hashes; each submission's sketch is its own $s smallest; the estimate is
--     |MIN_s(F(Q) u F(D)) n F(Q) n F(D)| / |MIN_s(F(Q) u F(D))|
-- (exact when query and submission have at most $s usable hashes together).
-- Only submissions whose sketch shares a hash with the query's can score above 0; only they are
-- sketched. The query's fingerprints are the relation query_fingerprints(hash); $exclude names
-- the query's own submission when it is indexed. Exclusions as in query_hits.sql: boilerplate
-- hashes and hashes in more than $max_df submissions.
-- Parameters: $s (BIGINT), $max_df (BIGINT), $exclude (VARCHAR or NULL), $min_shared (BIGINT).
-- Columns: path (the submission), sketch_shared (hashes of MIN_s of the union found in both),
-- sketch_size (|MIN_s of the union|), resemblance (the estimate).
WITH q AS (
    SELECT DISTINCT qf.hash
    FROM query_fingerprints qf
    LEFT JOIN fingerprint_df df ON df.hash = qf.hash
    LEFT JOIN boilerplate_hashes b ON b.hash = qf.hash
    WHERE b.hash IS NULL AND (df.df IS NULL OR df.df <= $max_df)
),
q_sketch AS (
    SELECT hash
    FROM (SELECT hash, ROW_NUMBER() OVER (ORDER BY hash) AS rnk FROM q) r
    WHERE rnk <= $s
),
usable AS (
    SELECT DISTINCT d.hash, d.submission
    FROM document_fingerprints d
    JOIN fingerprint_df df ON df.hash = d.hash
    LEFT JOIN boilerplate_hashes b ON b.hash = d.hash
    WHERE b.hash IS NULL AND df.df <= $max_df
      AND ($exclude IS NULL OR d.submission <> $exclude)
),
candidates AS (
    SELECT DISTINCT u.submission
    FROM usable u
    JOIN q_sketch q ON q.hash = u.hash
),
d_sketch AS (
    SELECT submission, hash
    FROM (SELECT u.submission, u.hash,
                 ROW_NUMBER() OVER (PARTITION BY u.submission ORDER BY u.hash) AS rnk
          FROM usable u
          JOIN candidates c ON c.submission = u.submission) r
    WHERE rnk <= $s
),
marked AS (
    SELECT c.submission, q.hash, 1 AS in_q, 0 AS in_d
    FROM candidates c
    CROSS JOIN q_sketch q
    UNION ALL
    SELECT submission, hash, 0 AS in_q, 1 AS in_d
    FROM d_sketch
),
merged AS (
    SELECT submission, hash, MAX(in_q) AS in_q, MAX(in_d) AS in_d
    FROM marked
    GROUP BY submission, hash
),
union_ranked AS (
    SELECT submission, in_q * in_d AS in_both,
           ROW_NUMBER() OVER (PARTITION BY submission ORDER BY hash) AS rnk
    FROM merged
),
estimated AS (
    SELECT submission, SUM(in_both) AS sketch_shared, COUNT(*) AS sketch_size
    FROM union_ranked
    WHERE rnk <= $s
    GROUP BY submission
)
SELECT submission AS path, sketch_shared, sketch_size,
       CAST(sketch_shared AS DOUBLE) / sketch_size AS resemblance
FROM estimated
WHERE sketch_shared >= $min_shared AND sketch_shared > 0
ORDER BY CAST(sketch_shared AS DOUBLE) / sketch_size DESC, sketch_shared DESC, submission
