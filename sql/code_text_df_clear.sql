-- code_text_df_clear.sql: empty code_text_df, before it is filled again (schema.fill_text_df).
-- DuckDB only: keeps the DuckDB index's statistics.
DELETE FROM code_text_df
