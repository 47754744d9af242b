-- code_text_df_delete_of.sql: delete the code_text_df rows of some hashes, before they are
-- counted again (text_df.recount).
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation text_df_hashes(hash) the caller registers.
DELETE FROM code_text_df WHERE hash IN (SELECT hash FROM text_df_hashes)
