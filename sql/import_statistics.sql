-- import_statistics.sql: the kept statistics of an index built by `winnowdb import` cleared, to be
-- counted anew from its documents and fingerprints a bucket of hashes at a time
-- (import_shared_hashes_span.sql, import_boilerplate_hashes_span.sql,
-- import_distinct_hashes_span.sql: an export may hold none, or ones from an older version).
-- DuckDB only: fills the DuckDB index's own tables, in the caller's transaction.
-- An export of schema 1 kept winnowdb's bookkeeping in settings: it moves to meta (the caller
-- records the schema version).
INSERT OR REPLACE INTO meta SELECT key, value FROM settings WHERE key = 'max_removed_doc';
DELETE FROM settings WHERE key IN ('views_digest', 'max_removed_doc', 'default_max_df_cache');
DELETE FROM shared_hashes;
DELETE FROM boilerplate_hashes;
DELETE FROM meta WHERE key IN ('distinct_hashes', 'default_max_df', 'views_digest');
