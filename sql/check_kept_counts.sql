-- check_kept_counts.sql: the counts kept in meta and boilerplate_hashes against a count over the
-- stored rows (distinct hashes of the ordinary documents; the hashes of boilerplate documents).
-- Columns: what, kept, counted (a row only where they differ).
WITH counts AS (
    SELECT 'distinct hashes' AS what,
           (SELECT TRY_CAST(MAX(value) AS BIGINT) FROM meta WHERE key = 'distinct_hashes') AS kept,
           (SELECT COUNT(DISTINCT f.hash) FROM fingerprints f JOIN documents d ON d.doc = f.doc
            WHERE d.kind = 'document') AS counted
    UNION ALL
    SELECT 'boilerplate hashes',
           (SELECT COUNT(*) FROM (SELECT DISTINCT hash FROM boilerplate_hashes) AS b)
             + (SELECT COUNT(*) - COUNT(DISTINCT hash) FROM boilerplate_hashes),
           (SELECT COUNT(DISTINCT f.hash) FROM fingerprints f JOIN documents d ON d.doc = f.doc
            WHERE d.kind = 'boilerplate')
)
SELECT what, kept, counted FROM counts WHERE kept IS DISTINCT FROM counted
