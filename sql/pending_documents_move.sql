-- pending_documents_move.sql: an add's pending documents become indexed documents (in the same
-- transaction that stores their fingerprints).
-- DuckDB only: the DuckDB index's bookkeeping of an add.
INSERT INTO documents
SELECT doc, path, submission, label, kind, normalizer, content_hash, normalized_hash, encoding, bytes, chars,
       units, fingerprints, simhash, added_at, sub, hashes, mtime_ns, ctime_ns
FROM documents_pending
ORDER BY doc;
DELETE FROM documents_pending;
