-- code_documents.sql: every code document's id and length, in id order (upgrade re-tokenizes them).
-- DuckDB only: upgrade's bookkeeping on the DuckDB index.
-- Columns: doc, chars.
SELECT doc, chars FROM documents WHERE normalizer LIKE 'code:%' ORDER BY doc
