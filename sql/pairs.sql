-- pairs.sql: all-vs-all copying, MOSS-style: Broder's <ID, ID, count> pair counting.
-- Which submissions share fingerprints, how many, and how much of each is found in the other?
-- Only hashes found in two or more submissions can be shared: shared_hashes lists them with their
-- document frequency (df), kept up to date by add and remove, so one scan of the fingerprints
-- marks the rows that matter (a shared or a boilerplate hash) and everything else counts in the
-- sizes only. Counting runs on distinct (hash, submission) rows, so a hash repeated inside a
-- document counts once; submissions are their integer ids (documents.sub) while counting, and
-- names are joined last.
-- Exclusions: hashes of boilerplate documents never count (MOSS -b); hashes in more than
-- $max_df submissions are common material and ignored (MOSS -m, Broder's very common shingles),
-- both in the shared counts and in each submission's size. The default cap (the default_max_df
-- view) keeps the self-join under 10 million rows.
-- A submission's size is its distinct hashes (documents.hashes; counted over its rows when it
-- has several documents, which may share hashes) less its excluded ones.
-- Parameters: $max_df (BIGINT, or NULL for the default: the default_max_df view), $min_shared
-- (BIGINT), $new_label (VARCHAR or NULL: when set, only pairs with at least one side labelled
-- $new_label; archive mode never compares old with old; a submission is new when any of its files
-- carries $new_label).
-- MATERIALIZED (a planning hint; dropped for Spark): compute these CTEs once, before the joins
-- that use them (DuckDB 2.0.1 otherwise joined the names onto the self-join's output).
-- Columns: a, b (submission names; a < b), shared, fingerprints_a, fingerprints_b,
-- containment_a (shared / fingerprints_a), containment_b, resemblance (shared / union).
WITH cap AS (
    SELECT COALESCE($max_df, (SELECT max_df FROM default_max_df)) AS max_df
),
subs AS MATERIALIZED (  -- one row per submission; new (archive mode) when any of its files is labelled $new_label
    SELECT sub, MIN(submission) AS submission, COALESCE(BOOL_OR(label = $new_label), FALSE) AS is_new,
           COUNT(*) AS docs, SUM(hashes) AS hashes
    FROM documents
    WHERE kind = 'document'
    GROUP BY sub
),
several AS (  -- submissions of several documents: their distinct hashes counted over their rows
    SELECT d.sub, COUNT(DISTINCT f.hash) AS hashes
    FROM fingerprints f
    JOIN documents d ON d.doc = f.doc
    WHERE d.kind = 'document' AND d.sub IN (SELECT sub FROM subs WHERE docs > 1)
    GROUP BY d.sub
),
marked AS MATERIALIZED (  -- distinct (hash, submission) rows whose hash is shared or boilerplate
    SELECT DISTINCT f.hash, d.sub, COALESCE(s.df, 1) AS df, b.hash IS NOT NULL AS boilerplate
    FROM fingerprints f
    JOIN documents d ON d.doc = f.doc
    LEFT JOIN shared_hashes s ON s.hash = f.hash
    LEFT JOIN boilerplate_hashes b ON b.hash = f.hash
    WHERE d.kind = 'document' AND (s.hash IS NOT NULL OR b.hash IS NOT NULL)
),
excluded AS (
    SELECT m.sub, COUNT(*) AS n
    FROM marked m
    CROSS JOIN cap
    WHERE m.boilerplate OR m.df > cap.max_df
    GROUP BY m.sub
),
subinfo AS MATERIALIZED (  -- one row per submission: its name, whether new, its size after the exclusions
    SELECT s.sub, s.submission, s.is_new, COALESCE(v.hashes, s.hashes) - COALESCE(e.n, 0) AS n
    FROM subs s
    LEFT JOIN several v ON v.sub = s.sub
    LEFT JOIN excluded e ON e.sub = s.sub
),
joinable AS MATERIALIZED (
    SELECT m.hash, m.sub, i.is_new
    FROM marked m
    JOIN subinfo i ON i.sub = m.sub
    CROSS JOIN cap
    WHERE NOT m.boilerplate AND m.df >= 2 AND m.df <= cap.max_df
),
counted AS (
    SELECT x.sub AS sa, y.sub AS sb, COUNT(*) AS shared
    FROM joinable x
    JOIN joinable y ON x.hash = y.hash AND x.sub < y.sub
    WHERE $new_label IS NULL OR x.is_new OR y.is_new
    GROUP BY x.sub, y.sub
    HAVING COUNT(*) >= $min_shared
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
