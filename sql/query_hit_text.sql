-- query_hit_text.sql: the text family's evidence for each hit of a code query (the pair score:
-- docs/score.md), read by query_hit_sizes.sql as hit_text; and for the two sides of `compare`.
-- Reads the relations query_text_hashes(hash) (the query's code text family: its text in short
-- k-grams) and hit_text_hashes(sub, hash) (each hit's: hit_text_hashes.sql, or a side's),
-- registered by the caller.
-- T is the text family's larger containment, each k-gram weighted by ln(N / df) (df from the
-- code_text_df view; a k-gram the index does not hold counts 1), the k-grams in more
-- submissions than the text family's cap (the smaller of $max_df and code_text_max_df) or of
-- boilerplate left out: as pairs.sql computes it. A hit without the family has no row.
-- Parameters: $max_df (BIGINT).
-- Columns: sub, text_containment (unweighted), t.
WITH total AS (  -- N, the submissions, for the rarity weights ln(N / df)
    SELECT COUNT(DISTINCT sub) AS n FROM documents WHERE kind = 'document'
),
text_cap AS (
    SELECT LEAST($max_df, COALESCE(v.max_df, $max_df)) AS max_df FROM code_text_max_df v
),
text_boilerplate AS MATERIALIZED (
    SELECT DISTINCT t.hash FROM code_text_hashes t JOIN documents d ON d.doc = t.doc WHERE d.kind = 'boilerplate'
),
q_text AS MATERIALIZED (
    SELECT DISTINCT hash FROM query_text_hashes WHERE hash NOT IN (SELECT hash FROM text_boilerplate)
),
h_text AS MATERIALIZED (  -- the hits' text family
    SELECT DISTINCT sub, hash FROM hit_text_hashes WHERE hash NOT IN (SELECT hash FROM text_boilerplate)
),
text_weights AS MATERIALIZED (  -- each k-gram's weight; none (NULL) above the cap
    SELECT x.hash,
           CASE WHEN COALESCE(f.df, 1) <= c.max_df THEN LN(t.n) - LN(COALESCE(f.df, 1)) END AS weight
    FROM (SELECT hash FROM q_text UNION SELECT hash FROM h_text) x
    LEFT JOIN code_text_df f ON f.hash = x.hash
    CROSS JOIN text_cap c
    CROSS JOIN total t
),
q_size AS (
    SELECT COUNT(w.weight) AS n, SUM(w.weight) AS weight
    FROM q_text q
    JOIN text_weights w ON w.hash = q.hash
),
h_sizes AS (
    SELECT h.sub, COUNT(w.weight) AS n, SUM(w.weight) AS weight,
           COUNT(CASE WHEN q.hash IS NOT NULL THEN w.weight END) AS shared,
           SUM(CASE WHEN q.hash IS NOT NULL THEN w.weight END) AS shared_weight
    FROM h_text h
    JOIN text_weights w ON w.hash = h.hash
    LEFT JOIN q_text q ON q.hash = h.hash
    GROUP BY h.sub
),
evidence AS (
    SELECT t.sub,
           CASE WHEN q.n > 0 AND t.n > 0
                THEN GREATEST(CAST(t.shared AS DOUBLE) / q.n, CAST(t.shared AS DOUBLE) / t.n) END AS text_containment,
           CASE WHEN q.weight > 0 AND t.weight > 0
                THEN LEAST(1.0, GREATEST(COALESCE(t.shared_weight, 0) / q.weight,
                                         COALESCE(t.shared_weight, 0) / t.weight)) END AS t
    FROM h_sizes t
    CROSS JOIN q_size q
)
SELECT sub, text_containment, t FROM evidence WHERE t IS NOT NULL
