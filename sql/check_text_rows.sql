-- check_text_rows.sql: documents without exactly one stored text (`winnowdb check`): reports and
-- passages need the text. Also checks the stored text has the recorded length in characters. An
-- empty text for a document with characters is not counted: that is how `winnowdb import` stores
-- a text it did not keep (check_unstored_texts.sql; a note, not damage).
-- Columns: doc, path, text_rows, chars, text_chars. No rows = healthy.
SELECT d.doc, d.path, COUNT(t.doc) AS text_rows, d.chars, MAX(CHARACTER_LENGTH(t.text)) AS text_chars
FROM documents d
LEFT JOIN document_texts t ON t.doc = d.doc
GROUP BY d.doc, d.path, d.chars
HAVING COUNT(t.doc) <> 1
    OR (MAX(CHARACTER_LENGTH(t.text)) <> d.chars AND MAX(CHARACTER_LENGTH(t.text)) <> 0)
ORDER BY d.doc
