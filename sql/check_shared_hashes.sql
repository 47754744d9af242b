-- check_shared_hashes.sql: hashes whose kept document frequency (shared_hashes, which pairs and
-- query rely on) differs from a count over the stored rows: a hash of two or more submissions
-- missing or miscounted, one listed twice, or one listed that is in fewer than two.
-- Columns: hash, kept (NULL: not kept), counted.
WITH counted AS (
    SELECT f.hash, COUNT(DISTINCT d.sub) AS df
    FROM fingerprints f
    JOIN documents d ON d.doc = f.doc
    WHERE d.kind = 'document'
    GROUP BY f.hash
),
kept AS (
    SELECT hash, MIN(df) AS df, COUNT(*) AS copies FROM shared_hashes GROUP BY hash
)
SELECT COALESCE(k.hash, c.hash) AS hash, k.df AS kept, COALESCE(c.df, 0) AS counted
FROM kept k
FULL OUTER JOIN (SELECT hash, df FROM counted WHERE df >= 2) c ON c.hash = k.hash
WHERE k.hash IS NULL OR c.hash IS NULL OR k.df <> c.df OR k.copies > 1
ORDER BY 1
