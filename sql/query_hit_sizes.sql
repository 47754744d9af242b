-- query_hit_sizes.sql: the hits of query_hits.sql with their sizes and scores, best score first.
-- Reads the relations query_hit_rows(sub, submission, shared, query_fingerprints) (query_hits.sql's
-- rows), hit_hashes(sub, hash) (the hits' own fingerprint hashes) and query_text_hashes(hash) (the
-- query's code text family: its text in short k-grams, empty unless the query is code and the
-- index has the family), registered by the caller.
-- A hit's size is its distinct hashes less the excluded ones (as in pairs.sql): boilerplate
-- hashes, and hashes in more than $max_df submissions.
-- The hits hold thousands of hashes, which would reach nearly every row group of shared_hashes;
-- the few hashes above $max_df are read instead with one scan of its df column (MATERIALIZED: a
-- planning hint, so that the scan is not driven by the hits' hashes; dropped for Spark).
-- The score is pairs.sql's for the pair (query, hit), docs/score.md: S = the larger of containment
-- and contained; for a code query and a code hit that both have the text family,
-- max(S^4 (0.9 + 0.1 T), T), T the text family's larger containment, each k-gram weighted by
-- ln(N / df) (df from the code_text_df view, a k-gram the index does not hold counting 1), the
-- k-grams in more submissions than the text family's cap (code_text_max_df) or of boilerplate
-- left out; otherwise S.
-- Parameters: $max_df (BIGINT).
-- Columns: path (the hit's submission), shared, query_fingerprints, fingerprints,
-- containment (shared / query's size: how much of the query is found in the hit),
-- contained (shared / hit's size), resemblance (shared / union), text_containment (the text
-- family's larger containment, unweighted; NULL without it), score.
WITH hh AS (
    SELECT DISTINCT sub, hash FROM hit_hashes
),
too_common AS MATERIALIZED (  -- every hash in more than $max_df submissions: one scan of df
    SELECT hash FROM shared_hashes WHERE df > $max_df
),
common AS (
    SELECT hash FROM too_common WHERE hash IN (SELECT hash FROM hh)
    UNION
    SELECT hash FROM boilerplate_hashes WHERE hash IN (SELECT hash FROM hh)
),
sizes AS (
    SELECT sub, COUNT(*) AS n FROM hh WHERE hash NOT IN (SELECT hash FROM common) GROUP BY sub
),
total AS (  -- N, the submissions, for the rarity weights ln(N / df)
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
    SELECT DISTINCT d.sub, t.hash
    FROM code_text_hashes t
    JOIN documents d ON d.doc = t.doc
    WHERE d.kind = 'document' AND d.sub IN (SELECT sub FROM query_hit_rows)
      AND t.hash NOT IN (SELECT hash FROM text_boilerplate)
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
scored AS (
    SELECT h.submission, h.shared, h.query_fingerprints, s.n,
           CAST(h.shared AS DOUBLE) / h.query_fingerprints AS containment,
           CAST(h.shared AS DOUBLE) / s.n AS contained,
           CAST(h.shared AS DOUBLE) / (h.query_fingerprints + s.n - h.shared) AS resemblance,
           CASE WHEN q.n > 0 AND t.n > 0
                THEN GREATEST(CAST(t.shared AS DOUBLE) / q.n, CAST(t.shared AS DOUBLE) / t.n) END AS text_containment,
           CASE WHEN q.weight > 0 AND t.weight > 0
                THEN LEAST(1.0, GREATEST(COALESCE(t.shared_weight, 0) / q.weight,
                                         COALESCE(t.shared_weight, 0) / t.weight)) END AS t
    FROM query_hit_rows h
    JOIN sizes s ON s.sub = h.sub
    CROSS JOIN q_size q
    LEFT JOIN h_sizes t ON t.sub = h.sub
)
SELECT submission AS path, shared, query_fingerprints, n AS fingerprints, containment, contained, resemblance,
       text_containment,
       -- rounded: sums of weights differ in their last bits with the order threads add them in
       COALESCE(ROUND(GREATEST(POWER(GREATEST(containment, contained), 4) * (0.9 + 0.1 * t), t), 9),
                GREATEST(containment, contained)) AS score
FROM scored
ORDER BY score DESC, containment DESC, shared DESC, submission
