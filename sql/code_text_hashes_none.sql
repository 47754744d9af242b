-- code_text_hashes_none.sql: no text family, with the columns of code_text_hashes.
-- Read as the code_text_hashes relation of an export that does not hold that table (one written by
-- `winnowdb spark fingerprint`, which computes the code tokens alone, or by a winnowdb before
-- schema 3), on DuckDB or Spark: its code pairs are scored by their code tokens alone.
SELECT CAST(NULL AS BIGINT) AS hash, CAST(NULL AS INTEGER) AS doc
FROM settings
WHERE 1 = 0
