-- code_text_clear.sql: empty the code documents' text family (upgrade computes it again from
-- the start: an upgrade interrupted before it recorded the family's settings left part of it).
-- DuckDB only: writes the DuckDB index.
DELETE FROM code_text_hashes
