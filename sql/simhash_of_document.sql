-- simhash_of_document.sql: the stored simhash of one indexed document, and its submission.
-- Used to look an indexed file up by its simhash (`winnowdb query FILE --simhash`).
-- Parameters: $path (VARCHAR: the document's absolute path).
-- Columns: simhash (BIGINT; 0 = no letters or digits), submission.
SELECT simhash, submission
FROM documents
WHERE path = $path AND kind = 'document'
