-- rewritten_documents_update.sql: the rows of documents fingerprinted again (upgrade), updated
-- in the transaction that stores their new fingerprints.
-- DuckDB only: rewrites the DuckDB index's documents.
-- Reads the relation rewritten_documents(doc, normalizer, normalized_hash, units, fingerprints,
-- hashes, text) the caller registers (the text: as read, from the index or from an unchanged file).
UPDATE documents
SET normalizer = r.normalizer, normalized_hash = r.normalized_hash, units = r.units,
    fingerprints = r.fingerprints, hashes = r.hashes
FROM rewritten_documents r
WHERE documents.doc = r.doc;
UPDATE document_texts
SET text = r.text
FROM rewritten_documents r
WHERE document_texts.doc = r.doc AND document_texts.text <> r.text;
