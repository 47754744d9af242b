-- check_unstored_texts.sql: documents whose text the index does not hold (`winnowdb check`, a
-- note). `winnowdb import` of an export made without --texts stores an empty text for every
-- document whose file it could not read back unchanged (and for all of them with --no-texts).
-- Not damage: pairs and scores need only fingerprints; compare and report cannot show these
-- documents' passages. Columns: doc, path. No rows = every text is stored.
SELECT d.doc, d.path
FROM documents d
JOIN document_texts t ON t.doc = d.doc
WHERE d.chars > 0
GROUP BY d.doc, d.path
HAVING COUNT(*) = 1 AND MAX(CHARACTER_LENGTH(t.text)) = 0
ORDER BY d.doc
