-- code_documents_count.sql: how many documents are code (tokenized by a code tokenizer).
-- DuckDB only: upgrade's bookkeeping on the DuckDB index.
-- Columns: documents.
SELECT COUNT(*) AS documents FROM documents WHERE normalizer LIKE 'code:%'
