-- cluster_pairs.sql: which pairs of documents are similar enough to be linked into one cluster?
-- Broder's third phase, <ID, ID, count>: every pair of documents sharing usable hashes, with how
-- many they share, then his resemblance and containment, kept when above the thresholds.
-- Reads the relation usable_hashes(hash, doc, df) (cluster_usable_hashes.sql: the member
-- documents' hashes after excluding boilerplate and very common ones); excluded hashes count
-- neither as shared nor in a document's size.
-- A pair is kept when resemblance >= $min_resemblance, or, when $min_containment is not NULL,
-- when either document is at least that much contained in the other.
-- Parameters: $min_resemblance (DOUBLE), $min_containment (DOUBLE or NULL).
-- Columns: a, b (doc ids, a < b), shared, fingerprints_a, fingerprints_b, resemblance
-- (shared / union), containment_a (shared / fingerprints_a: how much of a is found in b),
-- containment_b.
WITH sizes AS (
    SELECT doc, COUNT(*) AS n
    FROM usable_hashes
    GROUP BY doc
),
joinable AS (
    SELECT hash, doc
    FROM usable_hashes
    WHERE df >= 2
),
counted AS (
    SELECT x.doc AS a, y.doc AS b, COUNT(*) AS shared
    FROM joinable x
    JOIN joinable y ON y.hash = x.hash AND x.doc < y.doc
    GROUP BY x.doc, y.doc
),
scored AS (
    SELECT c.a, c.b, c.shared, sa.n AS fingerprints_a, sb.n AS fingerprints_b,
           CAST(c.shared AS DOUBLE) / (sa.n + sb.n - c.shared) AS resemblance,
           CAST(c.shared AS DOUBLE) / sa.n AS containment_a,
           CAST(c.shared AS DOUBLE) / sb.n AS containment_b
    FROM counted c
    JOIN sizes sa ON sa.doc = c.a
    JOIN sizes sb ON sb.doc = c.b
)
SELECT a, b, shared, fingerprints_a, fingerprints_b, resemblance, containment_a, containment_b
FROM scored
WHERE resemblance >= $min_resemblance
   OR ($min_containment IS NOT NULL
       AND (containment_a >= $min_containment OR containment_b >= $min_containment))
ORDER BY a, b
