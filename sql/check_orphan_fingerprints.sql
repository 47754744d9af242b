-- check_orphan_fingerprints.sql: fingerprint rows that belong to no document (`winnowdb check`).
-- They would match queries but could never be shown or removed. Rows of a pending document are
-- not orphans: an add killed while storing its fingerprints left them, and the next write drops
-- them before it fingerprints the document again (`check` notes pending documents). Nor are rows of
-- a removed document still to be deleted (documents_removed, store/purge.py: the next add or
-- remove deletes them; `check` notes them).
-- Columns: doc, fingerprint_rows. No rows = healthy.
SELECT f.doc, COUNT(*) AS fingerprint_rows
FROM fingerprints f
WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.doc = f.doc)
  AND NOT EXISTS (SELECT 1 FROM documents_pending p WHERE p.doc = f.doc)
  AND NOT EXISTS (SELECT 1 FROM documents_removed r WHERE r.doc = f.doc)
GROUP BY f.doc
ORDER BY f.doc
