-- check_submission_ids.sql: submissions whose documents disagree on the submission's id, or ids
-- shared by two submission names (documents.sub: pairs counts submissions by it).
-- Columns: submission, ids (the distinct ids found for it, or the names sharing its id).
SELECT submission, CAST(COUNT(DISTINCT sub) AS VARCHAR) || ' ids' AS ids
FROM documents
GROUP BY submission
HAVING COUNT(DISTINCT sub) > 1
UNION ALL
SELECT MIN(submission) AS submission, CAST(COUNT(DISTINCT submission) AS VARCHAR) || ' names share id ' || CAST(sub AS VARCHAR)
FROM documents
GROUP BY sub
HAVING COUNT(DISTINCT submission) > 1
ORDER BY submission
