-- documents_with_texts.sql: some documents' rows with their original texts (upgrade rewrites
-- them under their own ids).
-- DuckDB only: upgrade's bookkeeping on the DuckDB index.
-- Reads the relation wanted_docs(doc) the caller registers.
-- Columns: doc, path, submission, label, kind, normalizer, content_hash, encoding, bytes, added_at,
-- simhash, chars, text.
SELECT d.doc, d.path, d.submission, d.label, d.kind, d.normalizer, d.content_hash, d.encoding, d.bytes,
       d.added_at, d.simhash, d.chars, t.text
FROM documents d
JOIN document_texts t ON t.doc = d.doc
WHERE d.doc IN (SELECT doc FROM wanted_docs)
ORDER BY d.doc
