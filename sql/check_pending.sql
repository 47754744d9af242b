-- check_pending.sql: documents a killed add committed whose fingerprints are not stored yet
-- (not a problem: the next add stores them from their texts; `check` notes them).
-- Columns: doc, path.
SELECT doc, path FROM documents_pending ORDER BY doc
