-- check_common_hashes.sql: rows of common_hashes (which query reads for the hashes too common to
-- count) that differ from the kept document frequencies above the max-df it is kept for
-- (meta.common_hashes_max_df; without it, no read relies on the table and nothing is checked):
-- a hash missing, listed twice, or listed with another df or though it is not that common.
-- Columns: hash, kept (NULL: not in common_hashes), df (in shared_hashes; NULL: not that common),
-- max_df.
WITH floor AS (
    SELECT TRY_CAST(value AS BIGINT) AS max_df FROM meta WHERE key = 'common_hashes_max_df'
),
kept AS (
    SELECT hash, MIN(df) AS df, COUNT(*) AS copies FROM common_hashes GROUP BY hash
),
wanted AS (
    SELECT s.hash, s.df FROM shared_hashes s, floor f WHERE s.df > f.max_df
)
SELECT COALESCE(k.hash, w.hash) AS hash, k.df AS kept, w.df AS df, f.max_df
FROM kept k
FULL OUTER JOIN wanted w ON w.hash = k.hash
CROSS JOIN floor f
WHERE k.hash IS NULL OR w.hash IS NULL OR k.df <> w.df OR k.copies > 1
ORDER BY 1
