-- common_fingerprints.sql: the most widespread fingerprints, with one place each occurs.
-- Parameters: $limit_rows (BIGINT). Columns: hash, df (submissions containing it),
-- occurrences (rows), example_doc, example_start, example_end.
WITH counts AS (
    SELECT f.hash, COUNT(DISTINCT d.submission) AS df, COUNT(*) AS occurrences,
           MIN(f.doc) AS example_doc
    FROM fingerprints f
    JOIN documents d ON d.doc = f.doc
    WHERE d.kind = 'document'
    GROUP BY f.hash
)
SELECT c.hash, c.df, c.occurrences, c.example_doc,
       MIN(f.start_offset) AS example_start, MIN(f.end_offset) AS example_end
FROM counts c
JOIN fingerprints f ON f.hash = c.hash AND f.doc = c.example_doc
GROUP BY c.hash, c.df, c.occurrences, c.example_doc
ORDER BY c.df DESC, c.occurrences DESC, c.hash
LIMIT $limit_rows
