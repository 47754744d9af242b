-- fingerprint_rows_total.sql: how many rows the fingerprints table holds (every run's, pending
-- documents' included), for the record of runs (store/merge.py).
-- DuckDB only: the DuckDB index's storage.
-- Columns: rows.
SELECT COUNT(*) AS rows FROM fingerprints
