-- query_hits.sql: which indexed submissions share passages with one query document, ranked.
-- The query's fingerprints are given as the relation query_fingerprints(hash); the query may
-- itself be indexed (then $exclude names its submission so it does not find itself).
-- The same exclusions as pairs.sql: boilerplate hashes and hashes in more than $max_df
-- submissions count neither as shared nor in the sizes.
-- Only the rows that matter are read: the index's occurrences of the query's hashes (which give
-- the hits and their ranking), then, for the $top best hits only, their own hashes and those
-- hashes' occurrences (which give the hits' sizes); how common a hash is, is counted for those
-- hashes only, not for the whole index.
-- Parameters: $max_df (BIGINT), $exclude (VARCHAR or NULL), $min_shared (BIGINT), $top (BIGINT:
-- how many hits to return, best first; NULL for all).
-- Columns: path (the hit's submission), shared, query_fingerprints, fingerprints,
-- containment (shared / query's size: how much of the query is found in the hit),
-- contained (shared / hit's size), resemblance (shared / union).
WITH q AS (
    SELECT DISTINCT hash FROM query_fingerprints
),
q_occurrences AS (
    SELECT f.hash, d.submission, d.kind
    FROM fingerprints f
    JOIN q ON q.hash = f.hash
    JOIN documents d ON d.doc = f.doc
),
q_df AS (
    SELECT hash, COUNT(DISTINCT submission) AS df FROM q_occurrences WHERE kind = 'document' GROUP BY hash
),
q_boilerplate AS (
    SELECT DISTINCT hash FROM q_occurrences WHERE kind = 'boilerplate'
),
q_usable AS (
    SELECT q.hash
    FROM q
    LEFT JOIN q_df df ON df.hash = q.hash
    LEFT JOIN q_boilerplate b ON b.hash = q.hash
    WHERE b.hash IS NULL AND (df.df IS NULL OR df.df <= $max_df)
),
q_size AS (
    SELECT COUNT(*) AS n FROM q_usable
),
all_hits AS (
    SELECT o.submission, COUNT(DISTINCT o.hash) AS shared
    FROM q_occurrences o
    JOIN q_usable u ON u.hash = o.hash
    WHERE o.kind = 'document' AND ($exclude IS NULL OR o.submission <> $exclude)
    GROUP BY o.submission
    HAVING COUNT(DISTINCT o.hash) >= $min_shared
),
best AS (  -- the ranking is by containment, shared / the query's size: by shared
    SELECT submission, shared
    FROM (SELECT submission, shared, ROW_NUMBER() OVER (ORDER BY shared DESC, submission) AS rnk
          FROM all_hits) AS ranked
    WHERE $top IS NULL OR rnk <= $top
),
hit_hashes AS (
    SELECT DISTINCT f.hash, d.submission
    FROM fingerprints f
    JOIN documents d ON d.doc = f.doc
    JOIN best h ON h.submission = d.submission
    WHERE d.kind = 'document'
),
hit_occurrences AS (
    SELECT f.hash, d.submission, d.kind
    FROM fingerprints f
    JOIN (SELECT DISTINCT hash FROM hit_hashes) AS hh ON hh.hash = f.hash
    JOIN documents d ON d.doc = f.doc
),
hit_df AS (
    SELECT hash, COUNT(DISTINCT submission) AS df FROM hit_occurrences WHERE kind = 'document' GROUP BY hash
),
hit_boilerplate AS (
    SELECT DISTINCT hash FROM hit_occurrences WHERE kind = 'boilerplate'
),
sizes AS (
    SELECT hh.submission, COUNT(*) AS n
    FROM hit_hashes hh
    JOIN hit_df df ON df.hash = hh.hash
    LEFT JOIN hit_boilerplate b ON b.hash = hh.hash
    WHERE b.hash IS NULL AND df.df <= $max_df
    GROUP BY hh.submission
)
SELECT h.submission AS path, h.shared,
       qs.n AS query_fingerprints,
       s.n AS fingerprints,
       CAST(h.shared AS DOUBLE) / qs.n AS containment,
       CAST(h.shared AS DOUBLE) / s.n AS contained,
       CAST(h.shared AS DOUBLE) / (qs.n + s.n - h.shared) AS resemblance
FROM best h
JOIN sizes s ON s.submission = h.submission
CROSS JOIN q_size qs
ORDER BY CAST(h.shared AS DOUBLE) / qs.n DESC, h.shared DESC, h.submission
