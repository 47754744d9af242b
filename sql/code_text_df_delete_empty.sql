-- code_text_df_delete_empty.sql: delete the rows of code_text_df that a removal left with no
-- submission (after code_text_df_shrink.sql, in the same write).
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation text_df_delta(hash, n) the caller registers (as code_text_df_shrink.sql).
DELETE FROM code_text_df WHERE df <= 0 AND hash IN (SELECT hash FROM text_df_delta)
