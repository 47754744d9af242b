-- text_family_counts_of.sql: the distinct hashes of some documents' text family (their
-- code_text_hashes rows), each with how many of those documents hold it: the hashes whose df in
-- code_text_df a write that adds, replaces or removes these documents can change, and, when each
-- document is alone in its submission, by how much (store/text_df.py).
-- DuckDB only: the DuckDB index's bookkeeping of a write.
-- Reads the relation text_docs(doc) the caller registers. Parameters: $low, $high (BIGINT: the
-- smallest and largest of those docs, so that DuckDB skips the row groups of other documents:
-- the rows are stored as their documents were added).
-- Columns: hash, n.
SELECT hash, COUNT(DISTINCT doc) AS n
FROM code_text_hashes
WHERE doc BETWEEN $low AND $high AND doc IN (SELECT doc FROM text_docs)
GROUP BY hash
ORDER BY hash
