-- common_fingerprints.sql: the most widespread fingerprints, with one place each occurs.
-- Parameters: $limit_rows (BIGINT). Columns: hash, df (submissions containing it),
-- occurrences (rows), example_doc, example_start, example_end.
-- The $limit_rows most common hashes are chosen first; only they are looked up again for an example.
WITH subs AS (  -- submissions keyed by an integer (their smallest doc id): cheaper to count
    SELECT doc, MIN(doc) OVER (PARTITION BY submission) AS sub
    FROM documents
    WHERE kind = 'document'
),
counts AS (
    SELECT f.hash, COUNT(DISTINCT s.sub) AS df, COUNT(*) AS occurrences, MIN(f.doc) AS example_doc
    FROM fingerprints f
    JOIN subs s ON s.doc = f.doc
    GROUP BY f.hash
),
most_common AS (
    SELECT hash, df, occurrences, example_doc
    FROM counts
    ORDER BY df DESC, occurrences DESC, hash
    LIMIT $limit_rows
)
SELECT c.hash, c.df, c.occurrences, c.example_doc,
       MIN(f.start_offset) AS example_start, MIN(f.end_offset) AS example_end
FROM most_common c
JOIN fingerprints f ON f.hash = c.hash AND f.doc = c.example_doc
GROUP BY c.hash, c.df, c.occurrences, c.example_doc
ORDER BY c.df DESC, c.occurrences DESC, c.hash
