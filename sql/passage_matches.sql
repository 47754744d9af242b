-- passage_matches.sql: every matching fingerprint occurrence between two sides of a comparison.
-- The sides are the relations left_fingerprints and right_fingerprints, each with columns
-- (hash, doc, pos, start_offset, end_offset): stored rows of indexed documents, or the
-- fingerprints of a file that is not indexed. Hashes of boilerplate documents and hashes in more
-- than $max_df submissions are not matches. Python merges these rows into passages.
-- Parameters: $max_df (BIGINT).
SELECT l.doc AS doc_a, l.pos AS pos_a, l.start_offset AS start_a, l.end_offset AS end_a,
       r.doc AS doc_b, r.pos AS pos_b, r.start_offset AS start_b, r.end_offset AS end_b,
       l.hash
FROM left_fingerprints l
JOIN right_fingerprints r ON r.hash = l.hash
LEFT JOIN boilerplate_hashes b ON b.hash = l.hash
LEFT JOIN fingerprint_df df ON df.hash = l.hash
WHERE b.hash IS NULL AND (df.df IS NULL OR df.df <= $max_df)
ORDER BY doc_a, doc_b, pos_a, pos_b
