-- ordinary_documents_stored.sql: whether the index holds any ordinary (not boilerplate) document.
-- DuckDB only: when it holds none (a fresh index), an add's new hashes have no stored document
-- frequency to add to, and store/stats.py does not look them up (hash_df_stored.sql).
-- Columns: stored (BOOLEAN).
SELECT EXISTS (SELECT 1 FROM documents WHERE kind = 'document') AS stored
