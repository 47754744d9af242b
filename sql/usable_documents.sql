-- usable_documents.sql: the documents that have usable material (a hash that is neither
-- boilerplate nor too common) in the prepared temporary table usable_hashes (sketches.prepared).
-- DuckDB only: clusters on a DuckDB index (reads its temporary table).
-- Columns: doc.
SELECT DISTINCT doc FROM temp.usable_hashes
