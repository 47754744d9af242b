-- super_shingle_candidates.sql: which documents share a super shingle (Broder's fast clustering path)?
-- Each document's sketch (its s smallest usable hashes, sketch_min_s.sql) is sorted and
-- shingled again: every run of $length consecutive sketch hashes is one super shingle. Two
-- documents sharing a super shingle have a whole run of their sketches in common, which is likely
-- only when they resemble each other; no <ID, ID, count> pair counting is needed.
-- A super shingle is identified by its first hash, its last hash and a checksum of its residues
-- (window functions over the sorted sketch: no list or array type is needed).
-- Documents sharing one are linked star-wise to the smallest doc sharing it: enough for connected
-- components, and linear in the number of documents whatever a super shingle's popularity.
-- Limits, as the paper says: a document with fewer than $length usable hashes has no super
-- shingle (short documents are found poorly), and containment is not detected (a containing
-- document's extra hashes interleave with the shared ones in its sorted sketch).
-- Relation: doc_sketches(doc, rnk, hash) (sketch_min_s.sql). Parameters: $length (BIGINT).
-- Columns: a, b (doc ids, a < b): a candidate pair (a is the smallest doc sharing some super
-- shingle with b), super_shingles (how many of b's super shingles lead to a).
WITH windows AS (
    SELECT doc, hash AS first_hash,
           LEAD(hash, $length - 1) OVER (PARTITION BY doc ORDER BY rnk) AS last_hash,
           CAST(SUM(hash % 2147483629) OVER (PARTITION BY doc ORDER BY rnk
                                             ROWS BETWEEN CURRENT ROW AND $length - 1 FOLLOWING)
                AS BIGINT) AS checksum
    FROM doc_sketches
),
super_shingles AS (
    SELECT doc, first_hash, last_hash, checksum
    FROM windows
    WHERE last_hash IS NOT NULL
),
shared AS (
    SELECT first_hash, last_hash, checksum, MIN(doc) AS centre
    FROM super_shingles
    GROUP BY first_hash, last_hash, checksum
    HAVING COUNT(*) >= 2
)
SELECT s.centre AS a, x.doc AS b, COUNT(*) AS super_shingles
FROM super_shingles x
JOIN shared s ON s.first_hash = x.first_hash AND s.last_hash = x.last_hash AND s.checksum = x.checksum
WHERE s.centre < x.doc
GROUP BY s.centre, x.doc
ORDER BY a, b
