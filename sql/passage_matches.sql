-- passage_matches.sql: every matching fingerprint occurrence between two sides of a comparison.
-- The sides are the relations left_fingerprints and right_fingerprints, each with columns
-- (hash, doc, pos, start_offset, end_offset): the rows of indexed documents with their spans, as
-- fingerprinting their stored texts again gives them (the index stores no spans; -1 for documents
-- whose stored rows were read instead: analysis/sides.py), or the fingerprints of a file that is
-- not indexed. Only hashes in the relation counted_hashes(hash)
-- are matches: the caller fills it from countable_hashes.sql over the sides' hashes (hashes of
-- boilerplate documents and hashes in more than max_df submissions excluded), once for any
-- number of comparisons. Python merges these rows into passages.
-- Parameters: none. Columns: doc_a, pos_a, start_a, end_a, doc_b, pos_b, start_b, end_b, hash.
SELECT l.doc AS doc_a, l.pos AS pos_a, l.start_offset AS start_a, l.end_offset AS end_a,
       r.doc AS doc_b, r.pos AS pos_b, r.start_offset AS start_b, r.end_offset AS end_b,
       l.hash
FROM left_fingerprints l
JOIN right_fingerprints r ON r.hash = l.hash
JOIN counted_hashes c ON c.hash = l.hash
ORDER BY doc_a, doc_b, pos_a, pos_b
