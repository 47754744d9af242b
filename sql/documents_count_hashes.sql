-- documents_count_hashes.sql: the number of distinct fingerprint hashes of the documents stored
-- without one (huge documents, fingerprinted in segments: hashes is -1 until their rows are stored).
-- DuckDB only: the DuckDB index's bookkeeping of an add.
UPDATE documents
SET hashes = (SELECT COUNT(DISTINCT f.hash) FROM fingerprints f WHERE f.doc = documents.doc)
WHERE hashes < 0
