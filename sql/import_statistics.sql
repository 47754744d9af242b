-- import_statistics.sql: the kept statistics of an index built by `winnowdb import`, counted anew
-- from its documents and fingerprints (an export may hold none, or ones from an older version).
-- DuckDB only: fills the DuckDB index's own tables, in the caller's transaction.
-- An export of schema 1 kept winnowdb's bookkeeping in settings: it moves to meta (the caller
-- records the schema version).
INSERT OR REPLACE INTO meta SELECT key, value FROM settings WHERE key = 'max_removed_doc';
DELETE FROM settings WHERE key IN ('views_digest', 'max_removed_doc', 'default_max_df_cache');
DELETE FROM shared_hashes;
INSERT INTO shared_hashes
SELECT f.hash, COUNT(DISTINCT d.sub) AS df
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document'
GROUP BY f.hash
HAVING COUNT(DISTINCT d.sub) >= 2
ORDER BY f.hash;
DELETE FROM boilerplate_hashes;
INSERT INTO boilerplate_hashes
SELECT DISTINCT f.hash
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'boilerplate'
ORDER BY f.hash;
DELETE FROM meta WHERE key IN ('distinct_hashes', 'default_max_df', 'views_digest');
INSERT INTO meta
SELECT 'distinct_hashes', CAST(COUNT(DISTINCT f.hash) AS VARCHAR)
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document';
