-- common_hashes_none.sql: no common hashes, with the columns of common_hashes.
-- Read as the common_hashes relation of an export that does not hold that table (one written by
-- `winnowdb spark fingerprint`, or by a winnowdb before schema 4), on DuckDB or Spark. Its reads
-- pass a $common_floor no max-df reaches, so they take the too common hashes from shared_hashes.
SELECT CAST(NULL AS BIGINT) AS hash, CAST(NULL AS INTEGER) AS df
FROM settings
WHERE 1 = 0
