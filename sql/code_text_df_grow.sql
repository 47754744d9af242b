-- code_text_df_grow.sql: add to the df of kept hashes the new submissions that hold them (an add
-- whose new documents are all ordinary and in submissions new to the index: store/text_df.py).
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation text_df_delta(hash, n) the caller registers: each hash of the new documents'
-- text family, with how many of their submissions hold it.
UPDATE code_text_df SET df = code_text_df.df + d.n
FROM text_df_delta d
WHERE code_text_df.hash = d.hash
