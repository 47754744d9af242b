-- fingerprint_counts.sql: how many fingerprint rows each document has.
-- DuckDB only: ships rows out of the Spark job's private DuckDB index.
-- Columns: doc, fingerprints.
SELECT doc, COUNT(*) AS fingerprints FROM fingerprints GROUP BY doc
