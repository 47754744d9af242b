-- pairs.sql: all-vs-all copying, MOSS-style: Broder's <ID, ID, count> pair counting.
-- Which submissions share fingerprints, how many, and how much of each is found in the other?
-- Counting runs on distinct (hash, submission) rows after the exclusions, so a hash repeated
-- inside one document is counted once and the self-join stays small.
-- Exclusions: hashes of boilerplate documents never count (MOSS -b); hashes in more than
-- $max_df submissions are common material and ignored (MOSS -m, Broder's very common shingles),
-- both in the shared counts and in each submission's size.
-- Parameters: $max_df (BIGINT), $min_shared (BIGINT), $new_label (VARCHAR or NULL: when set, only
-- pairs with at least one side labelled $new_label; archive mode never compares old with old).
-- Columns: a, b (submission names; a < b), shared, fingerprints_a, fingerprints_b,
-- containment_a (shared / fingerprints_a), containment_b, resemblance (shared / union).
WITH usable AS (
    SELECT DISTINCT d.hash, d.submission, d.label
    FROM document_fingerprints d
    JOIN fingerprint_df df ON df.hash = d.hash
    LEFT JOIN boilerplate_hashes b ON b.hash = d.hash
    WHERE b.hash IS NULL AND df.df <= $max_df
),
joinable AS (
    SELECT u.hash, u.submission, u.label
    FROM usable u
    JOIN fingerprint_df df ON df.hash = u.hash
    WHERE df.df >= 2
),
sizes AS (
    SELECT submission, COUNT(DISTINCT hash) AS n
    FROM usable
    GROUP BY submission
),
counted AS (
    SELECT x.submission AS a, y.submission AS b, COUNT(DISTINCT x.hash) AS shared
    FROM joinable x
    JOIN joinable y ON x.hash = y.hash AND x.submission < y.submission
    WHERE $new_label IS NULL OR x.label = $new_label OR y.label = $new_label
    GROUP BY x.submission, y.submission
)
SELECT c.a, c.b, c.shared,
       sa.n AS fingerprints_a,
       sb.n AS fingerprints_b,
       CAST(c.shared AS DOUBLE) / sa.n AS containment_a,
       CAST(c.shared AS DOUBLE) / sb.n AS containment_b,
       CAST(c.shared AS DOUBLE) / (sa.n + sb.n - c.shared) AS resemblance
FROM counted c
JOIN sizes sa ON sa.submission = c.a
JOIN sizes sb ON sb.submission = c.b
WHERE c.shared >= $min_shared
ORDER BY GREATEST(CAST(c.shared AS DOUBLE) / sa.n, CAST(c.shared AS DOUBLE) / sb.n) DESC,
         c.shared DESC, c.a, c.b
