-- pairs.sql: all-vs-all copying, MOSS-style: Broder's <ID, ID, count> pair counting.
-- Which submissions share fingerprints, how many, and how much of each is found in the other?
-- Counting runs on distinct (hash, submission) rows after the exclusions, so a hash repeated
-- inside one document is counted once and the self-join stays small. Submissions are keyed by
-- an integer (the smallest doc id among their documents) while counting; names are joined last.
-- Exclusions: hashes of boilerplate documents never count (MOSS -b); hashes in more than
-- $max_df submissions are common material and ignored (MOSS -m, Broder's very common shingles),
-- both in the shared counts and in each submission's size.
-- Parameters: $max_df (BIGINT, or NULL for the default: the rule of the default_max_df view,
-- computed here from the same counts), $min_shared (BIGINT), $new_label (VARCHAR or NULL: when set, only
-- pairs with at least one side labelled $new_label; archive mode never compares old with old;
-- a submission is new when any of its files carries $new_label).
-- MATERIALIZED (a planning hint; dropped for Spark): DuckDB 2.0.1 otherwise joined the
-- submissions' names onto the self-join's output (10M rows on a 1,000-document corpus: 2.3 s and
-- 1.2 GB instead of 1.1 s and 0.6 GB), and joined names and sizes to every pair separately.
-- Columns: a, b (submission names; a < b), shared, fingerprints_a, fingerprints_b,
-- containment_a (shared / fingerprints_a), containment_b, resemblance (shared / union).
WITH subs AS (
    SELECT doc, kind, label, submission, MIN(doc) OVER (PARTITION BY submission) AS sub
    FROM documents
),
names AS (  -- one row per submission; new (archive mode) when any of its files is labelled $new_label
    SELECT sub, MIN(submission) AS submission, COALESCE(BOOL_OR(label = $new_label), FALSE) AS is_new
    FROM subs WHERE kind = 'document' GROUP BY sub
),
boilerplate AS (
    SELECT DISTINCT f.hash
    FROM fingerprints f
    JOIN subs s ON s.doc = f.doc
    WHERE s.kind = 'boilerplate'
),
fp AS (
    SELECT DISTINCT f.hash, s.sub
    FROM fingerprints f
    JOIN subs s ON s.doc = f.doc
    WHERE s.kind = 'document'
),
df AS (
    SELECT hash, COUNT(*) AS df FROM fp GROUP BY hash
),
hist AS (
    SELECT df, COUNT(*) AS hashes FROM df WHERE df >= 2 GROUP BY df
),
cost AS (
    SELECT df, SUM(CAST(hashes AS DOUBLE) * df * (df - 1) / 2)
               OVER (ORDER BY df ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS join_rows
    FROM hist
),
cap AS (
    SELECT COALESCE($max_df, CASE
               WHEN (SELECT COUNT(*) FROM cost WHERE join_rows > 20000000) = 0
                   THEN LEAST(1000, GREATEST(10, CAST(FLOOR((SELECT COUNT(*) FROM names) / 4.0) AS BIGINT)))
               ELSE LEAST(1000, GREATEST(10, CAST(FLOOR((SELECT COUNT(*) FROM names) / 4.0) AS BIGINT)),
                          GREATEST(10, COALESCE((SELECT MAX(df) FROM cost WHERE join_rows <= 20000000), 10)))
           END) AS max_df
),
usable AS (
    SELECT fp.hash, fp.sub, df.df
    FROM fp
    JOIN df ON df.hash = fp.hash
    CROSS JOIN cap
    LEFT JOIN boilerplate b ON b.hash = fp.hash
    WHERE b.hash IS NULL AND df.df <= cap.max_df
),
sizes AS (
    SELECT sub, COUNT(*) AS n FROM usable GROUP BY sub
),
joinable AS MATERIALIZED (
    SELECT u.hash, u.sub, n.is_new
    FROM usable u
    JOIN names n ON n.sub = u.sub
    WHERE u.df >= 2
),
counted AS (
    SELECT x.sub AS sa, y.sub AS sb, COUNT(*) AS shared
    FROM joinable x
    JOIN joinable y ON x.hash = y.hash AND x.sub < y.sub
    WHERE $new_label IS NULL OR x.is_new OR y.is_new
    GROUP BY x.sub, y.sub
    HAVING COUNT(*) >= $min_shared
),
subinfo AS MATERIALIZED (  -- one row per submission: its name and size, joined to each pair side
    SELECT n.sub, n.submission, z.n
    FROM names n
    JOIN sizes z ON z.sub = n.sub
),
named AS (
    SELECT CASE WHEN ia.submission < ib.submission THEN ia.submission ELSE ib.submission END AS a,
           CASE WHEN ia.submission < ib.submission THEN ib.submission ELSE ia.submission END AS b,
           c.shared,
           CASE WHEN ia.submission < ib.submission THEN ia.n ELSE ib.n END AS fingerprints_a,
           CASE WHEN ia.submission < ib.submission THEN ib.n ELSE ia.n END AS fingerprints_b
    FROM counted c
    JOIN subinfo ia ON ia.sub = c.sa
    JOIN subinfo ib ON ib.sub = c.sb
)
SELECT a, b, shared, fingerprints_a, fingerprints_b,
       CAST(shared AS DOUBLE) / fingerprints_a AS containment_a,
       CAST(shared AS DOUBLE) / fingerprints_b AS containment_b,
       CAST(shared AS DOUBLE) / (fingerprints_a + fingerprints_b - shared) AS resemblance
FROM named
ORDER BY GREATEST(CAST(shared AS DOUBLE) / fingerprints_a, CAST(shared AS DOUBLE) / fingerprints_b) DESC,
         shared DESC, a, b
