-- text_evidence.sql: the code text family's evidence for pairs of sides (the pair score:
-- docs/score.md): each hit of a code query (read by query_hit_sizes.sql as hit_text), or the two
-- sides of each pair `compare` and the report show.
-- Reads the relations query_text_hashes(qid, hash) (the text family of each query side: its
-- text in short k-grams), hit_text_hashes(sub, hash) (each other side's: hit_text_hashes.sql for
-- a query's hits) and text_pairs(qid, sub) (which sides to compare), registered by the caller.
-- T is the text family's larger containment, each k-gram weighted by ln(N / df) (df from the
-- code_text_df table, kept by every write; a k-gram the index does not hold counts 1), the k-grams in more
-- submissions than the text family's cap (the smaller of $max_df and code_text_max_df) or of
-- boilerplate left out: as pairs.sql computes it. A pair where a side has no family has no row.
-- Parameters: $max_df (BIGINT).
-- Columns: qid, sub, text_containment (unweighted), t.
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
    SELECT DISTINCT qid, hash FROM query_text_hashes WHERE hash NOT IN (SELECT hash FROM text_boilerplate)
),
h_text AS MATERIALIZED (
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
q_sizes AS (
    SELECT q.qid, COUNT(w.weight) AS n, SUM(w.weight) AS weight
    FROM q_text q
    JOIN text_weights w ON w.hash = q.hash
    GROUP BY q.qid
),
h_sizes AS (
    SELECT h.sub, COUNT(w.weight) AS n, SUM(w.weight) AS weight
    FROM h_text h
    JOIN text_weights w ON w.hash = h.hash
    GROUP BY h.sub
),
shared AS (
    SELECT p.qid, p.sub, COUNT(w.weight) AS n, SUM(w.weight) AS weight
    FROM text_pairs p
    JOIN q_text q ON q.qid = p.qid
    JOIN h_text h ON h.sub = p.sub AND h.hash = q.hash
    JOIN text_weights w ON w.hash = q.hash
    GROUP BY p.qid, p.sub
),
evidence AS (
    SELECT p.qid, p.sub,
           CASE WHEN q.n > 0 AND h.n > 0
                THEN GREATEST(CAST(COALESCE(s.n, 0) AS DOUBLE) / q.n, CAST(COALESCE(s.n, 0) AS DOUBLE) / h.n)
           END AS text_containment,
           CASE WHEN q.weight > 0 AND h.weight > 0
                THEN LEAST(1.0, GREATEST(COALESCE(s.weight, 0) / q.weight, COALESCE(s.weight, 0) / h.weight))
           END AS t
    FROM text_pairs p
    JOIN q_sizes q ON q.qid = p.qid
    JOIN h_sizes h ON h.sub = p.sub
    LEFT JOIN shared s ON s.qid = p.qid AND s.sub = p.sub
)
-- t rounded: sums of weights differ in their last bits with the order threads (or engines) add them in
SELECT qid, sub, text_containment, ROUND(t, 12) AS t FROM evidence WHERE t IS NOT NULL
