-- delete_cluster_rows.sql: remove removed documents from the clusters snapshot (its rows would
-- name documents that are gone). Reads the relation gone_docs(doc) the caller registers.
-- DuckDB only: writes the DuckDB index.
DELETE FROM clusters WHERE doc IN (SELECT doc FROM gone_docs)
