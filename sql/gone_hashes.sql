-- gone_hashes.sql: the distinct hashes of documents about to be removed (their document
-- frequencies are counted again after).
-- DuckDB only: the DuckDB index's bookkeeping of a removal.
-- Reads the relation gone_docs(doc) the caller registers. Columns: hash.
SELECT DISTINCT hash FROM fingerprints WHERE doc IN (SELECT doc FROM gone_docs)
