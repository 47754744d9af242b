-- code_text_df_shrink.sql: take from the df of kept hashes the submissions a removal empties (a
-- removal of ordinary documents that are every document of their submissions: store/text_df.py);
-- a hash left in none is deleted after (code_text_df_delete_empty.sql).
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation text_df_delta(hash, n) the caller registers: each hash of the removed
-- documents' text family, with how many of their submissions held it.
UPDATE code_text_df SET df = code_text_df.df - d.n
FROM text_df_delta d
WHERE code_text_df.hash = d.hash
