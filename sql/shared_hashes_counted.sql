-- shared_hashes_counted.sql: every hash found in two or more submissions, with df, counted from
-- the fingerprints (what the shared_hashes table of a DuckDB index keeps).
-- Read as the shared_hashes relation of an export that does not hold that table (one written by
-- `winnowdb spark fingerprint`), on DuckDB or Spark. Columns: hash, df.
SELECT f.hash, COUNT(DISTINCT d.sub) AS df
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document'
GROUP BY f.hash
HAVING COUNT(DISTINCT d.sub) >= 2
