-- fingerprints_merged_create.sql: the empty table a merge of the fingerprint runs fills
-- (store/merge.py), with the columns and constraints of fingerprints (create_tables.sql); an
-- older one, left by an interrupted merge, is dropped first.
-- DuckDB only: rewrites the DuckDB index's storage.
DROP TABLE IF EXISTS fingerprints_merged;
CREATE TABLE fingerprints_merged (
    hash BIGINT NOT NULL,
    doc INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL
);
