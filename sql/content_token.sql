-- content_token.sql: a cheap token of everything the default --max-df depends on (store/max_df.py):
-- it changes whenever a document or a fingerprint is added, removed or altered (counts, and XORs
-- of the hashes, doc ids, submissions and kinds: tens of milliseconds for ten million rows).
-- DuckDB only: a token of the DuckDB index's content (hash() differs between engines).
-- Columns: fingerprint_rows, fingerprint_hash_xor, fingerprint_doc_xor, documents, max_doc, document_xor.
SELECT f.fingerprint_rows, f.fingerprint_hash_xor, f.fingerprint_doc_xor, d.documents, d.max_doc, d.document_xor
FROM (SELECT COUNT(*) AS fingerprint_rows, bit_xor(hash) AS fingerprint_hash_xor, bit_xor(doc) AS fingerprint_doc_xor
      FROM fingerprints) AS f
CROSS JOIN (SELECT COUNT(*) AS documents, MAX(doc) AS max_doc,
                   bit_xor(hash(doc || ':' || kind || ':' || submission)) AS document_xor
            FROM documents) AS d
