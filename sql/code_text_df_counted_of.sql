-- code_text_df_counted_of.sql: code_text_df_counted.sql for some hashes only: each of them with
-- its df, the number of submissions holding it, counted from the text family's rows; hashes that
-- a boilerplate document holds, or that no document holds any more, give no row.
-- What a write that added or removed documents inserts into code_text_df for the hashes of their
-- text family (text_df.recount), after deleting those hashes' rows.
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation text_df_hashes(hash) the caller registers.
-- Columns: hash, df.
WITH rows_of AS (
    SELECT t.hash, d.sub, d.kind
    FROM code_text_hashes t
    JOIN documents d ON d.doc = t.doc
    WHERE t.hash IN (SELECT hash FROM text_df_hashes)
)
SELECT hash, COUNT(DISTINCT sub) AS df
FROM rows_of
GROUP BY hash
HAVING COUNT(*) FILTER (WHERE kind = 'boilerplate') = 0  -- so every row counted is a document's
ORDER BY hash
