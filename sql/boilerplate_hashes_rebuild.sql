-- boilerplate_hashes_rebuild.sql: the hashes of the boilerplate documents, counted anew (after a
-- boilerplate document was removed or replaced).
-- DuckDB only: keeps the DuckDB index's statistics.
DELETE FROM boilerplate_hashes;
INSERT INTO boilerplate_hashes
SELECT DISTINCT f.hash
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'boilerplate'
ORDER BY f.hash;
