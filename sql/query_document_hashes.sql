-- query_document_hashes.sql: the fingerprint hashes of the documents a query names (they are the
-- query's fingerprints when it is indexed).
-- Reads the relation query_docs(doc) the caller registers. Columns: hash.
SELECT f.hash FROM fingerprints f JOIN query_docs q ON q.doc = f.doc
