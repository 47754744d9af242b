-- insert_fingerprints.sql: store a batch of fingerprint rows.
-- DuckDB only: writes the DuckDB index.
-- Reads the relation new_fingerprints(hash, doc, pos) the caller registers.
INSERT INTO fingerprints SELECT hash, doc, pos FROM new_fingerprints
