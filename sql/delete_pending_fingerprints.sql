-- delete_pending_fingerprints.sql: remove the fingerprint rows of pending documents (what an add
-- that was killed while storing its fingerprints had stored; nothing reads them), before the
-- documents are fingerprinted again from their texts (ingest/pending.py).
-- DuckDB only: writes the DuckDB index.
DELETE FROM fingerprints WHERE doc IN (SELECT doc FROM documents_pending)
