-- check_document_values.sql: document rows with impossible values (`winnowdb check`): an unknown
-- kind, or negative sizes or counts.
-- Columns: doc, path, problem (what is impossible, e.g. "units -3" or "kind 'weird'"). No rows = healthy.
SELECT doc, path,
       concat_ws(', ',
                 CASE WHEN kind NOT IN ('document', 'boilerplate') THEN 'kind ''' || kind || '''' END,
                 CASE WHEN bytes < 0 THEN 'bytes ' || bytes END,
                 CASE WHEN chars < 0 THEN 'chars ' || chars END,
                 CASE WHEN units < 0 THEN 'units ' || units END,
                 CASE WHEN fingerprints < 0 THEN 'fingerprints ' || fingerprints END,
                 CASE WHEN hashes < 0 OR hashes > fingerprints THEN 'hashes ' || hashes END) AS problem
FROM documents
WHERE kind NOT IN ('document', 'boilerplate')
   OR bytes < 0 OR chars < 0 OR units < 0 OR fingerprints < 0 OR hashes < 0 OR hashes > fingerprints
ORDER BY doc
