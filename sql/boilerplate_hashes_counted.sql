-- boilerplate_hashes_counted.sql: the hashes of the boilerplate documents, counted from the
-- fingerprints (what the boilerplate_hashes table of a DuckDB index keeps).
-- Read as the boilerplate_hashes relation of an export that does not hold that table (one
-- written by `winnowdb spark fingerprint`), on DuckDB or Spark. Columns: hash.
SELECT DISTINCT f.hash
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'boilerplate'
