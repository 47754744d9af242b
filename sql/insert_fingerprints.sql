-- insert_fingerprints.sql: store a batch of fingerprint rows.
-- DuckDB only: writes the DuckDB index.
-- Reads the relation new_fingerprints(hash, doc, pos, start_offset, end_offset) the caller registers.
INSERT INTO fingerprints SELECT * FROM new_fingerprints
