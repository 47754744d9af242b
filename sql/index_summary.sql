-- index_summary.sql: the size of an index, for `winnowdb stats`.
-- Columns: documents, boilerplate, submissions, fingerprints, units (normalized units indexed),
-- chars, distinct_hashes.
SELECT
    (SELECT COUNT(*) FROM documents WHERE kind = 'document') AS documents,
    (SELECT COUNT(*) FROM documents WHERE kind = 'boilerplate') AS boilerplate,
    (SELECT COUNT(DISTINCT submission) FROM documents WHERE kind = 'document') AS submissions,
    (SELECT COUNT(*) FROM fingerprints) AS fingerprints,
    (SELECT COALESCE(SUM(units), 0) FROM documents) AS units,
    (SELECT COALESCE(SUM(chars), 0) FROM documents) AS chars,
    (SELECT COUNT(DISTINCT hash) FROM fingerprints) AS distinct_hashes
