-- migrate_8_to_9.sql: schema 8 -> 9, the text family's document frequencies kept in a table
-- (issue 20). code_text_df was a view that counted every row of code_text_hashes for each query
-- and pairs run of a code index (970 files: 60 ms of a 230 ms query, growing with the index); it
-- is now a table, filled again by every write (stats.remember_text_df), ordered by hash, so a
-- query looks its few thousand hashes up. schema.py fills it after this file.
-- DuckDB only: writes the DuckDB index.
DROP VIEW IF EXISTS code_text_max_df;
DROP VIEW IF EXISTS code_text_df;
CREATE TABLE code_text_df (
    hash BIGINT NOT NULL,
    df INTEGER NOT NULL
);
