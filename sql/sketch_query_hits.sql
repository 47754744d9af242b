-- sketch_query_hits.sql: which indexed submissions resemble one query document, by Broder's MIN_s estimate?
-- The Winnowing paper (section 3.2) notes that looking up only the smallest few fingerprints of
-- a query realizes Broder's resemblance test, and looking up all of them the full containment
-- test (query_hits.sql); $s picks a point on that spectrum. The query's sketch is its $s smallest
-- usable hashes; each submission's sketch is its own $s smallest; the estimate is
--     |MIN_s(F(Q) u F(D)) n F(Q) n F(D)| / |MIN_s(F(Q) u F(D))|
-- (exact when query and submission have at most $s usable hashes together).
-- Only submissions whose sketch shares a hash with the query's can score above 0; only they are
-- sketched. The query's fingerprints are the relation query_fingerprints(hash); $exclude names
-- the query's own submission when it is indexed. Exclusions as in query_found.sql: boilerplate
-- hashes and hashes in more than $max_df submissions, counted for the hashes involved only.
-- Parameters: $s (BIGINT), $max_df (BIGINT), $exclude (VARCHAR or NULL), $min_shared (BIGINT).
-- Columns: path (the submission), sketch_shared (hashes of MIN_s of the union found in both),
-- sketch_size (|MIN_s of the union|), resemblance (the estimate).
WITH q_all AS (
    SELECT DISTINCT hash FROM query_fingerprints
),
q_occurrences AS (  -- the index's occurrences of the query's hashes (how common, boilerplate?)
    SELECT f.hash, d.submission, d.kind
    FROM fingerprints f
    JOIN q_all ON q_all.hash = f.hash
    JOIN documents d ON d.doc = f.doc
),
q_df AS (
    SELECT hash, COUNT(DISTINCT submission) AS df FROM q_occurrences WHERE kind = 'document' GROUP BY hash
),
q_boilerplate AS (
    SELECT DISTINCT hash FROM q_occurrences WHERE kind = 'boilerplate'
),
q AS (
    SELECT qa.hash
    FROM q_all qa
    LEFT JOIN q_df df ON df.hash = qa.hash
    LEFT JOIN q_boilerplate b ON b.hash = qa.hash
    WHERE b.hash IS NULL AND (df.df IS NULL OR df.df <= $max_df)
),
q_sketch AS (
    SELECT hash
    FROM (SELECT hash, ROW_NUMBER() OVER (ORDER BY hash) AS rnk FROM q) r
    WHERE rnk <= $s
),
candidates AS (
    SELECT DISTINCT o.submission
    FROM q_occurrences o
    JOIN q_sketch q ON q.hash = o.hash
    WHERE o.kind = 'document' AND ($exclude IS NULL OR o.submission <> $exclude)
),
candidate_hashes AS (  -- the candidates' own hashes, and (below) how common each is
    SELECT DISTINCT f.hash, d.submission
    FROM fingerprints f
    JOIN documents d ON d.doc = f.doc
    JOIN candidates c ON c.submission = d.submission
    WHERE d.kind = 'document'
),
candidate_occurrences AS (
    SELECT f.hash, d.submission, d.kind
    FROM fingerprints f
    JOIN (SELECT DISTINCT hash FROM candidate_hashes) AS ch ON ch.hash = f.hash
    JOIN documents d ON d.doc = f.doc
),
candidate_df AS (
    SELECT hash, COUNT(DISTINCT submission) AS df FROM candidate_occurrences WHERE kind = 'document' GROUP BY hash
),
candidate_boilerplate AS (
    SELECT DISTINCT hash FROM candidate_occurrences WHERE kind = 'boilerplate'
),
usable AS (
    SELECT ch.hash, ch.submission
    FROM candidate_hashes ch
    JOIN candidate_df df ON df.hash = ch.hash
    LEFT JOIN candidate_boilerplate b ON b.hash = ch.hash
    WHERE b.hash IS NULL AND df.df <= $max_df
),
d_sketch AS (
    SELECT submission, hash
    FROM (SELECT u.submission, u.hash,
                 ROW_NUMBER() OVER (PARTITION BY u.submission ORDER BY u.hash) AS rnk
          FROM usable u) r
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
