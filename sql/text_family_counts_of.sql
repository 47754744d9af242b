-- text_family_counts_of.sql: the distinct hashes of some indexed documents' text family (their
-- code_text_hashes rows), each with how many submissions of those documents hold it: the hashes
-- whose df in code_text_df a write that adds, replaces or removes these documents can change,
-- and, when no other document shares their submissions, by how much (store/text_df.py).
-- DuckDB only: the DuckDB index's bookkeeping of a write.
-- Reads the relation text_docs(doc) the caller registers. Parameters: $low, $high (BIGINT: the
-- smallest and largest of those docs, so that DuckDB skips the row groups of other documents:
-- the rows are stored as their documents were added).
-- Columns: hash, n.
SELECT t.hash, COUNT(DISTINCT d.sub) AS n
FROM code_text_hashes t
JOIN documents d ON d.doc = t.doc
WHERE t.doc BETWEEN $low AND $high AND t.doc IN (SELECT doc FROM text_docs)
GROUP BY t.hash
ORDER BY t.hash
