-- code_text_sources.sql: every code document, indexed or pending, with its kind and length, in id
-- order (upgrade computes their text family from the stored texts: ingest/code_text.py).
-- DuckDB only: upgrade's bookkeeping on the DuckDB index.
-- Columns: doc, kind, chars.
SELECT doc, kind, chars FROM documents WHERE normalizer LIKE 'code:%'
UNION ALL
SELECT doc, kind, chars FROM documents_pending WHERE normalizer LIKE 'code:%'
ORDER BY doc
