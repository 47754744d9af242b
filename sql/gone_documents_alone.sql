-- gone_documents_alone.sql: whether each document about to be removed is the only document of
-- its submission (then removing it takes exactly one submission from each hash it holds: the
-- cheap case of store/text_df.py).
-- DuckDB only: the DuckDB index's bookkeeping of a removal.
-- Reads the relation gone_docs(doc) the caller registers. Columns: alone.
WITH gone AS (
    SELECT DISTINCT d.doc, d.sub FROM documents d WHERE d.doc IN (SELECT doc FROM gone_docs)
)
SELECT (SELECT COUNT(*) FROM gone) = (SELECT COUNT(DISTINCT doc) FROM gone_docs)  -- each one stored
       AND (SELECT COUNT(DISTINCT sub) FROM gone) = (SELECT COUNT(*) FROM gone)  -- in submissions of their own
       AND (SELECT COUNT(*) FROM documents WHERE sub IN (SELECT sub FROM gone)) = (SELECT COUNT(*) FROM gone) AS alone
