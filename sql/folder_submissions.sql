-- folder_submissions.sql: submissions that are folders (not a file that is its own), with the
-- label all their files share (NULL when they differ or some have none): a new file inside such
-- a folder joins it and takes that label.
-- DuckDB only: add's bookkeeping on the DuckDB index.
-- Columns: submission, label.
SELECT submission,
       CASE WHEN COUNT(DISTINCT label) = 1 AND COUNT(label) = COUNT(*) THEN MIN(label) END AS label
FROM documents
WHERE submission <> path
GROUP BY submission
