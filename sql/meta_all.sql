-- meta_all.sql: winnowdb's bookkeeping in the index (schema 2 on): views digest, highest removed
-- id, counters, how far fingerprints are stored.
-- Columns: key, value (both text).
SELECT key, value FROM meta
