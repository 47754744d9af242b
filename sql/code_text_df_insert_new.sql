-- code_text_df_insert_new.sql: the hashes of new documents' text family that code_text_df does
-- not keep yet, with their df, unless a boilerplate document holds them (then they are left out,
-- as code_text_df_counted.sql leaves them out). After code_text_df_grow.sql, in the same write.
-- DuckDB only: keeps the DuckDB index's statistics.
-- Reads the relation text_df_delta(hash, n) the caller registers (as code_text_df_grow.sql).
INSERT INTO code_text_df
SELECT d.hash, d.n
FROM text_df_delta d
WHERE d.hash NOT IN (SELECT hash FROM code_text_df)
  AND d.hash NOT IN (SELECT t.hash FROM code_text_hashes t
                     WHERE t.doc IN (SELECT doc FROM documents WHERE kind = 'boilerplate'))
ORDER BY d.hash
