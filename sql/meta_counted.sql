-- meta_counted.sql: the bookkeeping a report reads from the meta table, counted from the
-- fingerprints: distinct_hashes (how many distinct hashes the ordinary documents hold).
-- Read as the meta relation of an export that does not hold that table (one written by
-- `winnowdb spark fingerprint`), on DuckDB or Spark. Columns: key, value.
SELECT 'distinct_hashes' AS key, CAST(COUNT(DISTINCT f.hash) AS STRING) AS value
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document'
