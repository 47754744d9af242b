-- delete_fingerprints_of.sql: remove the fingerprint rows of some documents.
-- DuckDB only: writes the DuckDB index.
-- Reads the relation gone_docs(doc) the caller registers.
DELETE FROM fingerprints WHERE doc IN (SELECT doc FROM gone_docs)
