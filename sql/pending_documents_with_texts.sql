-- pending_documents_with_texts.sql: the documents a killed add committed without their
-- fingerprints, with their texts: the next write fingerprints them again from these.
-- DuckDB only: the DuckDB index's bookkeeping of an add.
-- Reads the relation wanted_docs(doc) the caller registers.
-- Columns: doc, path, kind, normalizer, chars, hashes (-1: the add counts its df when it stores
-- it, as for a huge document), text.
SELECT p.doc, p.path, p.kind, p.normalizer, p.chars, p.hashes, t.text
FROM documents_pending p
JOIN document_texts t ON t.doc = p.doc
WHERE p.doc IN (SELECT doc FROM wanted_docs)
ORDER BY p.doc
