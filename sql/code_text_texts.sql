-- code_text_texts.sql: some documents' paths, content hashes and stored texts, indexed or
-- pending (upgrade computes their text family: ingest/code_text.py).
-- DuckDB only: upgrade's bookkeeping on the DuckDB index.
-- Reads the relation wanted_docs(doc) the caller registers.
-- Columns: doc, path, content_hash, chars, text.
WITH docs AS (
    SELECT doc, path, content_hash, chars FROM documents
    UNION ALL
    SELECT doc, path, content_hash, chars FROM documents_pending
)
SELECT d.doc, d.path, d.content_hash, d.chars, t.text
FROM docs d
JOIN document_texts t ON t.doc = d.doc
WHERE d.doc IN (SELECT doc FROM wanted_docs)
ORDER BY d.doc
