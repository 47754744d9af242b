-- duplicate_representatives.sql: Broder's three kinds of duplicate, as one representative per document.
-- Which documents are identical, lexically equivalent or fingerprint equivalent to which?
-- For every ordinary document (kind 'document') it gives the smallest doc id among the documents
--   identical_rep    with the same raw bytes (content_hash, stored at add time);
--   lexical_rep      with the same normalized text (normalized_hash, stored at add time, under
--                    the same normalizer);
--                    a document that normalizes to nothing is lexically equivalent only to its
--                    identical copies;
--   fingerprint_rep  with the same set of stored fingerprint hashes (Broder's "shingle-equivalent";
--                    the set after the index's selection: winnow, all or mod).
-- Each kind contains the one before: identical => lexically equivalent => fingerprint equivalent.
-- Fingerprint sets are compared between lexical representatives only. A signature of each set
-- (size, smallest and largest hash, a checksum of residues) proposes a group; each member is then
-- verified against the group's smallest doc by counting the hashes they share, so a signature
-- collision can never put two different sets together. A document without fingerprints (shorter
-- than k units) is fingerprint equivalent only to the documents lexically equivalent to it.
-- No hash is excluded here (not boilerplate, not common ones): these are exact equivalences.
-- Parameters: none. Columns: doc, path, submission, identical_rep, lexical_rep, fingerprint_rep,
-- fingerprints (number of distinct stored hashes of the document).
WITH docs AS (
    SELECT doc, path, submission, content_hash,
           CASE WHEN units > 0 THEN 'n' || normalizer || ':' || normalized_hash ELSE 'c' || content_hash END
               AS lexical_key
    FROM documents
    WHERE kind = 'document'
),
identical AS (
    SELECT content_hash, MIN(doc) AS rep
    FROM docs
    GROUP BY content_hash
),
lexical AS (
    SELECT lexical_key, MIN(doc) AS rep
    FROM docs
    GROUP BY lexical_key
),
hashes AS (
    SELECT DISTINCT f.doc, f.hash
    FROM fingerprints f
    JOIN lexical l ON l.rep = f.doc
),
signatures AS (
    SELECT doc, COUNT(*) AS n, MIN(hash) AS lo, MAX(hash) AS hi,
           SUM(hash % 2147483629) AS checksum
    FROM hashes
    GROUP BY doc
),
proposed AS (
    SELECT doc, n, MIN(doc) OVER (PARTITION BY n, lo, hi, checksum) AS centre
    FROM signatures
),
verified AS (
    SELECT p.doc, p.centre
    FROM proposed p
    JOIN hashes a ON a.doc = p.doc
    JOIN hashes c ON c.doc = p.centre AND c.hash = a.hash
    WHERE p.centre < p.doc
    GROUP BY p.doc, p.centre, p.n
    HAVING COUNT(*) = p.n
)
SELECT d.doc, d.path, d.submission,
       i.rep AS identical_rep,
       l.rep AS lexical_rep,
       COALESCE(v.centre, l.rep) AS fingerprint_rep,
       COALESCE(s.n, 0) AS fingerprints
FROM docs d
JOIN identical i ON i.content_hash = d.content_hash
JOIN lexical l ON l.lexical_key = d.lexical_key
LEFT JOIN verified v ON v.doc = l.rep
LEFT JOIN signatures s ON s.doc = l.rep
ORDER BY d.doc
