-- gone_documents_alone.sql: whether the documents about to be removed are every document of
-- their submissions (then removing them takes exactly one submission from each hash they hold per
-- submission holding it: the cheap case of store/text_df.py).
-- DuckDB only: the DuckDB index's bookkeeping of a removal.
-- Reads the relation gone_docs(doc) the caller registers. Columns: alone.
WITH gone AS (
    SELECT DISTINCT d.doc, d.sub FROM documents d WHERE d.doc IN (SELECT doc FROM gone_docs)
)
SELECT (SELECT COUNT(*) FROM gone) = (SELECT COUNT(DISTINCT doc) FROM gone_docs)  -- each one stored
       AND (SELECT COUNT(*) FROM documents WHERE sub IN (SELECT sub FROM gone)) = (SELECT COUNT(*) FROM gone)
       AS alone
