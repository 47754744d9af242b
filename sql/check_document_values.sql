-- check_document_values.sql: document rows with impossible values (`winnowdb check`): an unknown
-- kind, or negative sizes or counts.
-- Columns: doc, path, kind. No rows = healthy.
SELECT doc, path, kind
FROM documents
WHERE kind NOT IN ('document', 'boilerplate')
   OR bytes < 0 OR chars < 0 OR units < 0 OR fingerprints < 0
ORDER BY doc
