-- document_text.sql: one document's path, original text, length and normalizer.
-- DuckDB only: the read path of a DuckDB index (stats: the text of a common fingerprint).
-- Parameters: $doc (INTEGER). Columns: path, text, chars, normalizer.
SELECT d.path, t.text, d.chars, d.normalizer FROM documents d JOIN document_texts t ON t.doc = d.doc WHERE d.doc = $doc
