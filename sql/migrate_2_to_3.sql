-- migrate_2_to_3.sql: schema 2 -> 3, the code documents' text family (issue 21).
-- DuckDB only: writes the DuckDB index.
-- Adds the empty code_text_hashes table; `winnowdb upgrade` fills it from the stored texts of
-- the code documents and then records the family's settings (code_text_k, code_text_w).
CREATE TABLE IF NOT EXISTS code_text_hashes (
    hash BIGINT NOT NULL,
    doc INTEGER NOT NULL
)
