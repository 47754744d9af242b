-- sketch_pair_estimates.sql: Broder's MIN_s estimate of the resemblance of given pairs of documents.
-- With F(X) the sketch of X (its s smallest usable hashes, sketch_min_s.sql), the estimate is
--     |MIN_s(F(A) u F(B)) n F(A) n F(B)| / |MIN_s(F(A) u F(B))|
-- (unbiased; exact when the two documents have at most s usable hashes together). Only the
-- sketches are read, never the full fingerprint sets.
-- Relations: doc_sketches(doc, rnk, hash) (sketch_min_s.sql with the same $s); sketch_pairs_wanted(a,
-- b), the pairs to estimate (doc ids). Parameters: $s (BIGINT).
-- Columns: a, b, sketch_shared (hashes of MIN_s of the union found in both), sketch_size
-- (|MIN_s of the union|), resemblance (the estimate; 0 when both sketches are empty).
WITH wanted AS (
    SELECT DISTINCT a, b FROM sketch_pairs_wanted
),
marked AS (
    SELECT w.a, w.b, x.hash, 1 AS in_a, 0 AS in_b
    FROM wanted w
    JOIN doc_sketches x ON x.doc = w.a
    UNION ALL
    SELECT w.a, w.b, y.hash, 0 AS in_a, 1 AS in_b
    FROM wanted w
    JOIN doc_sketches y ON y.doc = w.b
),
merged AS (
    SELECT a, b, hash, MAX(in_a) AS in_a, MAX(in_b) AS in_b
    FROM marked
    GROUP BY a, b, hash
),
union_ranked AS (
    SELECT a, b, in_a * in_b AS in_both,
           ROW_NUMBER() OVER (PARTITION BY a, b ORDER BY hash) AS rnk
    FROM merged
),
estimated AS (
    SELECT a, b, SUM(in_both) AS sketch_shared, COUNT(*) AS sketch_size
    FROM union_ranked
    WHERE rnk <= $s
    GROUP BY a, b
)
SELECT w.a, w.b,
       COALESCE(e.sketch_shared, 0) AS sketch_shared,
       COALESCE(e.sketch_size, 0) AS sketch_size,
       CASE WHEN e.sketch_size > 0 THEN CAST(e.sketch_shared AS DOUBLE) / e.sketch_size ELSE 0.0 END
           AS resemblance
FROM wanted w
LEFT JOIN estimated e ON e.a = w.a AND e.b = w.b
ORDER BY w.a, w.b
