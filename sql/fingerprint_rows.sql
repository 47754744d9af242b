-- fingerprint_rows.sql: how many fingerprint rows the index holds.
-- DuckDB only: the DuckDB index's bookkeeping.
-- Columns: rows.
SELECT COUNT(*) AS rows FROM fingerprints
