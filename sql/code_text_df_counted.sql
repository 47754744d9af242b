-- code_text_df_counted.sql: each hash of the code's text family (code_text_hashes) with its df, the
-- number of submissions holding it, counted from the rows; hashes of boilerplate documents left
-- out. What the code_text_df table of a DuckDB index keeps (a write brings its own documents'
-- hashes up to date, store/text_df.py, or fills the table again with this query,
-- schema.fill_text_df), read as the code_text_df relation of an export that does not hold that
-- table, on DuckDB or Spark, and compared with the table by `winnowdb check`.
-- Columns: hash, df.
WITH marked AS (
    SELECT DISTINCT t.hash, d.sub
    FROM code_text_hashes t
    JOIN documents d ON d.doc = t.doc
    WHERE d.kind = 'document'
)
SELECT m.hash, COUNT(*) AS df
FROM marked m
WHERE NOT EXISTS (SELECT 1 FROM code_text_hashes t JOIN documents d ON d.doc = t.doc
                  WHERE d.kind = 'boilerplate' AND t.hash = m.hash)
GROUP BY m.hash
ORDER BY m.hash
