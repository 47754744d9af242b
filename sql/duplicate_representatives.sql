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
-- Fingerprint sets are compared between lexical representatives only, in three steps:
--   1. a weak signature of each set, from one pass over the raw rows grouped by document: its
--      size (documents.hashes, the distinct hashes counted at add time) and aggregates a set's
--      repeats cannot change (its smallest and largest hash, and residue). Equal sets always
--      have equal weak signatures; near-equal sets (two releases' changelogs) often too;
--   2. only the documents whose weak signature is shared have their hashes made distinct, and
--      get a strong one (with a checksum of every hash, as one of them alone changes it);
--   3. each member of a strong group is verified against the group's smallest doc by counting
--      the hashes they share, so a collision can never put two different sets together.
-- Making every row of the index distinct first (a hash table of all of them) took 31 s and
-- 6.5 GB at 100,000 documents and filled the disk at 1,000,000 (bench/RESULTS.md, Scale).
-- A document without fingerprints (shorter than k units) is fingerprint equivalent only to the
-- documents lexically equivalent to it.
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
signatures AS (  -- 1. every lexical representative with fingerprints, and its weak signature
    SELECT f.doc, MIN(f.hash) AS lo, MAX(f.hash) AS hi,
           MIN(f.hash % 2147483629) AS lo_residue, MAX(f.hash % 2147483629) AS hi_residue
    FROM fingerprints f
    JOIN lexical l ON l.rep = f.doc
    GROUP BY f.doc
),
sized AS (
    SELECT s.*, d.hashes AS n
    FROM signatures s
    JOIN documents d ON d.doc = s.doc
),
shared_weak AS (  -- 2. the documents whose weak signature another one has too
    SELECT doc
    FROM (SELECT doc, COUNT(*) OVER (PARTITION BY n, lo, hi, lo_residue, hi_residue) AS members FROM sized) AS w
    WHERE members >= 2
),
hashes AS (
    SELECT DISTINCT f.doc, f.hash
    FROM fingerprints f
    JOIN shared_weak w ON w.doc = f.doc
),
strong AS (
    SELECT doc, COUNT(*) AS n, MIN(hash) AS lo, MAX(hash) AS hi, SUM(hash % 2147483629) AS checksum
    FROM hashes
    GROUP BY doc
),
proposed AS (
    SELECT doc, n, MIN(doc) OVER (PARTITION BY n, lo, hi, checksum) AS centre
    FROM strong
),
verified AS (  -- 3.
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
LEFT JOIN sized s ON s.doc = l.rep
ORDER BY d.doc
