-- query_hits.sql: which indexed submissions share passages with one query document, ranked.
-- The query's fingerprints are given as the relation query_fingerprints(hash); the query may
-- itself be indexed (then $exclude names its submission so it does not find itself).
-- The same exclusions as pairs.sql: boilerplate hashes and hashes in more than $max_df
-- submissions count neither as shared nor in the sizes.
-- Parameters: $max_df (BIGINT), $exclude (VARCHAR or NULL), $min_shared (BIGINT).
-- Columns: path (the hit's submission), shared, query_fingerprints, fingerprints,
-- containment (shared / query's size: how much of the query is found in the hit),
-- contained (shared / hit's size), resemblance (shared / union).
WITH q AS (
    SELECT DISTINCT qf.hash
    FROM query_fingerprints qf
    LEFT JOIN fingerprint_df df ON df.hash = qf.hash
    LEFT JOIN boilerplate_hashes b ON b.hash = qf.hash
    WHERE b.hash IS NULL AND (df.df IS NULL OR df.df <= $max_df)
),
q_size AS (
    SELECT COUNT(*) AS n FROM q
),
usable AS (
    SELECT DISTINCT d.hash, d.submission
    FROM document_fingerprints d
    JOIN fingerprint_df df ON df.hash = d.hash
    LEFT JOIN boilerplate_hashes b ON b.hash = d.hash
    WHERE b.hash IS NULL AND df.df <= $max_df
      AND ($exclude IS NULL OR d.submission <> $exclude)
),
hits AS (
    SELECT u.submission, COUNT(DISTINCT u.hash) AS shared
    FROM usable u
    JOIN q ON q.hash = u.hash
    GROUP BY u.submission
),
sizes AS (
    SELECT u.submission, COUNT(DISTINCT u.hash) AS n
    FROM usable u
    JOIN hits h ON h.submission = u.submission
    GROUP BY u.submission
)
SELECT h.submission AS path, h.shared,
       qs.n AS query_fingerprints,
       s.n AS fingerprints,
       CAST(h.shared AS DOUBLE) / qs.n AS containment,
       CAST(h.shared AS DOUBLE) / s.n AS contained,
       CAST(h.shared AS DOUBLE) / (qs.n + s.n - h.shared) AS resemblance
FROM hits h
JOIN sizes s ON s.submission = h.submission
CROSS JOIN q_size qs
WHERE h.shared >= $min_shared
ORDER BY CAST(h.shared AS DOUBLE) / qs.n DESC, h.shared DESC, h.submission
