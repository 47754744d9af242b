-- passage_matches.sql: every matching fingerprint occurrence between two sides of a comparison.
-- The sides are the relations left_fingerprints and right_fingerprints, each with columns
-- (hash, doc, pos, start_offset, end_offset): stored rows of indexed documents, or the
-- fingerprints of a file that is not indexed. Hashes of boilerplate documents and hashes in more
-- than $max_df submissions are not matches (counted for the matching hashes only, not for the
-- whole index). Python merges these rows into passages.
-- Parameters: $max_df (BIGINT).
WITH matched AS (
    SELECT l.doc AS doc_a, l.pos AS pos_a, l.start_offset AS start_a, l.end_offset AS end_a,
           r.doc AS doc_b, r.pos AS pos_b, r.start_offset AS start_b, r.end_offset AS end_b,
           l.hash
    FROM left_fingerprints l
    JOIN right_fingerprints r ON r.hash = l.hash
),
occurrences AS (
    SELECT f.hash, d.submission, d.kind
    FROM fingerprints f
    JOIN (SELECT DISTINCT hash FROM matched) AS m ON m.hash = f.hash
    JOIN documents d ON d.doc = f.doc
),
df AS (
    SELECT hash, COUNT(DISTINCT submission) AS df FROM occurrences WHERE kind = 'document' GROUP BY hash
),
boilerplate AS (
    SELECT DISTINCT hash FROM occurrences WHERE kind = 'boilerplate'
)
SELECT m.doc_a, m.pos_a, m.start_a, m.end_a, m.doc_b, m.pos_b, m.start_b, m.end_b, m.hash
FROM matched m
LEFT JOIN boilerplate b ON b.hash = m.hash
LEFT JOIN df ON df.hash = m.hash
WHERE b.hash IS NULL AND (df.df IS NULL OR df.df <= $max_df)
ORDER BY doc_a, doc_b, pos_a, pos_b
