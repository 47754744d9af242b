-- new_document_kinds.sql: for each document whose fingerprints are about to be stored, whether it
-- is ordinary (not boilerplate), and whether it is ordinary, in a submission no indexed document
-- is in, with its distinct hashes marked (fast: then each hash's document frequency only grows by
-- the number of new submissions holding it, the cheap case of store/stats.py; a huge document's
-- distinct hashes are counted once stored: hashes -1), and its submission.
-- DuckDB only: the DuckDB index's bookkeeping of an add.
-- Reads the relation new_docs(doc) the caller registers: pending documents, or (with $rewritten)
-- indexed ones fingerprinted again.
-- new_sub: ordinary and in a submission no indexed document is in (its text family's hashes then
-- gain one submission each per new submission holding them: store/text_df.py).
-- Parameters: $rewritten (BOOLEAN). Columns: doc, ordinary, fast, new_sub, sub.
WITH candidates AS (
    SELECT doc, kind, sub, hashes FROM documents_pending WHERE NOT $rewritten
    UNION ALL
    SELECT doc, kind, sub, hashes FROM documents WHERE $rewritten
)
SELECT n.doc,
       c.kind = 'document' AS ordinary,
       c.kind = 'document' AND NOT $rewritten AND c.hashes >= 0
           AND c.sub NOT IN (SELECT sub FROM documents) AS fast,
       c.kind = 'document' AND NOT $rewritten AND c.sub NOT IN (SELECT sub FROM documents) AS new_sub,
       c.sub
FROM new_docs n
JOIN candidates c ON c.doc = n.doc
