-- fingerprints_merged_count.sql: the rows of the fingerprints table and of the table a merge
-- filled (store/merge.py), which must be equal before it replaces the first.
-- DuckDB only: checks a rewrite of the DuckDB index's storage.
-- Columns: fingerprints, merged.
SELECT (SELECT COUNT(*) FROM fingerprints) AS fingerprints,
       (SELECT COUNT(*) FROM fingerprints_merged) AS merged
