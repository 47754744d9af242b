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
-- Archive mode ($new_label) counts only the hashes of the new submissions (new_usable): their
-- rows, and those of the same hashes elsewhere, are all the self-join needs. The excluded hashes
-- of every submission are then counted from the rows of the excluded hashes alone (boilerplate,
-- above max-df). So the work follows the new submissions, not the archive: a year of 10,000
-- documents against 1,000,000 took 48 s with every shared row marked, 12.5 s so
-- (bench/RESULTS.md, Scale).
-- Parameters: $max_df (BIGINT, or NULL for the default: the default_max_df view), $min_shared
-- (BIGINT), $new_label (VARCHAR or NULL: when set, only pairs with at least one side labelled
-- $new_label; archive mode never compares old with old; a submission is new when any of its files
-- carries $new_label), $min_score (DOUBLE or NULL: when set, only pairs scoring at least that).
-- MATERIALIZED (a planning hint; dropped for Spark): compute these CTEs once, before the joins
-- that use them (DuckDB 2.0.1 otherwise joined the names onto the self-join's output).
-- The score (issue 21; docs/score.md): how likely the pair is a copy, in [0, 1], the ranking.
-- Text: the larger containment, S. Code, when both sides have the text family (code_text_hashes:
-- their text in short k-grams, identifiers, literals and comments kept): max(S^4 (0.9 + 0.1 T), T),
-- where T is the text family's larger containment with each hash weighted by its rarity,
-- ln(N / df) over the N submissions (a k-gram every solution has counts little). The tokens find
-- renamed and reformatted copies but run high on unrelated programs that share structure (S^4
-- deflates them); the text finds what the tokens miss and is low on unrelated programs; of two
-- pairs whose tokens match alike, the one whose text agrees more ranks first (the last tenth of
-- the tokens' score is the text's). The text family is capped like the tokens ($max_df), and
-- lowered where its self-join would exceed 1 million rows (the code_text_max_df view: short
-- k-grams of code are common, a tenth of the tokens' budget keeps it under half a second on 1,000
-- files, and the commonest weigh least); it rescores the pairs the tokens find, and adds only the
-- pairs of a submission without code token fingerprints (shorter than one k-gram of tokens): those
-- share no token (shared 0, containments 0) and score T, as query_text_found.sql finds them for a
-- query. Chosen on the dev sets:
-- bench/results/score_study.md.
-- Columns: a, b (submission names; a < b), shared, fingerprints_a, fingerprints_b,
-- containment_a (shared / fingerprints_a; 0 when fingerprints_a is 0), containment_b,
-- resemblance (shared / union; 0 when the union is empty),
-- text_containment (the text family's larger containment, unweighted; NULL when a side has no
-- text family), score.
WITH cap AS (
    SELECT COALESCE($max_df, (SELECT max_df FROM default_max_df)) AS max_df
),
total AS (  -- N, the submissions, for the rarity weights ln(N / df)
    SELECT COUNT(DISTINCT sub) AS n FROM documents WHERE kind = 'document'
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
new_usable AS MATERIALIZED (  -- archive mode: the hashes of the new submissions that can be shared,
                              -- with their df (in two to max-df submissions, not boilerplate)
    SELECT s.hash, s.df
    FROM (SELECT DISTINCT f.hash
          FROM fingerprints f
          JOIN documents d ON d.doc = f.doc
          WHERE $new_label IS NOT NULL AND d.kind = 'document' AND d.sub IN (SELECT sub FROM subs WHERE is_new)) h
    JOIN shared_hashes s ON s.hash = h.hash
    CROSS JOIN cap
    WHERE s.df <= cap.max_df AND s.hash NOT IN (SELECT hash FROM boilerplate_hashes)
),
marked AS MATERIALIZED (  -- distinct (hash, submission) rows whose hash is shared or boilerplate; in
                          -- archive mode only those of the new submissions' usable hashes
    SELECT DISTINCT f.hash, d.sub, COALESCE(s.df, 1) AS df, b.hash IS NOT NULL AS boilerplate
    FROM fingerprints f
    JOIN documents d ON d.doc = f.doc
    LEFT JOIN shared_hashes s ON s.hash = f.hash
    LEFT JOIN boilerplate_hashes b ON b.hash = f.hash
    WHERE $new_label IS NULL AND d.kind = 'document' AND (s.hash IS NOT NULL OR b.hash IS NOT NULL)
    UNION ALL
    SELECT DISTINCT f.hash, d.sub, u.df, FALSE AS boilerplate
    FROM fingerprints f
    JOIN new_usable u ON u.hash = f.hash
    JOIN documents d ON d.doc = f.doc
    WHERE $new_label IS NOT NULL AND d.kind = 'document'
),
excluded AS (  -- per submission, its distinct hashes that do not count: boilerplate, or in more than
               -- max-df submissions (in archive mode counted from their own rows: marked holds only
               -- the new submissions' hashes there)
    SELECT m.sub, COUNT(*) AS n
    FROM marked m
    CROSS JOIN cap
    WHERE $new_label IS NULL AND (m.boilerplate OR m.df > cap.max_df)
    GROUP BY m.sub
    UNION ALL
    SELECT d.sub, COUNT(DISTINCT CASE WHEN d.repeats THEN f.hash END) + COUNT(CASE WHEN NOT d.repeats THEN 1 END) AS n
    FROM fingerprints f
    JOIN (  -- a document's rows hold each hash once unless it repeats one (more rows than distinct
            -- hashes) or its submission has several documents: only those are made distinct
        SELECT doc, sub, fingerprints <> hashes OR sub IN (SELECT sub FROM subs WHERE docs > 1) AS repeats
        FROM documents
        WHERE kind = 'document'
    ) d ON d.doc = f.doc
    WHERE $new_label IS NOT NULL
      AND f.hash IN (SELECT s.hash FROM shared_hashes s CROSS JOIN cap WHERE s.df > cap.max_df
                     UNION
                     SELECT hash FROM boilerplate_hashes)
    GROUP BY d.sub
),
subinfo AS MATERIALIZED (  -- one row per submission: its name, whether new, its size after the exclusions,
                           -- its size before them (0: no code token fingerprint at all)
    SELECT s.sub, s.submission, s.is_new, COALESCE(v.hashes, s.hashes) - COALESCE(e.n, 0) AS n,
           COALESCE(v.hashes, s.hashes) AS tokens
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
text_marked AS MATERIALIZED (  -- the text family: distinct (hash, submission) of code documents
    -- (a document's hashes are distinct already: only submissions of several documents need DISTINCT)
    SELECT t.hash, d.sub
    FROM code_text_hashes t
    JOIN documents d ON d.doc = t.doc
    WHERE d.kind = 'document' AND d.sub IN (SELECT sub FROM subs WHERE docs = 1)
    UNION ALL
    SELECT DISTINCT t.hash, d.sub
    FROM code_text_hashes t
    JOIN documents d ON d.doc = t.doc
    WHERE d.kind = 'document' AND d.sub IN (SELECT sub FROM subs WHERE docs > 1)
),
text_df AS MATERIALIZED (  -- each text hash's df (code_text_df: boilerplate hashes left out)
    SELECT hash, df FROM code_text_df
),
text_cap AS (  -- $max_df, or the text family's own lower cap (code_text_max_df: 1 million join rows)
    SELECT LEAST(cap.max_df, COALESCE(v.max_df, cap.max_df)) AS max_df
    FROM cap
    CROSS JOIN code_text_max_df v
),
text_usable AS MATERIALIZED (  -- the text family's usable (hash, submission) rows, with their weight
    SELECT m.hash, m.sub, f.df, LN(t.n) - LN(f.df) AS weight
    FROM text_marked m
    JOIN text_df f ON f.hash = m.hash
    CROSS JOIN text_cap c
    CROSS JOIN total t
    WHERE f.df <= c.max_df
),
text_sizes AS MATERIALIZED (
    SELECT sub, COUNT(*) AS n, SUM(weight) AS weight FROM text_usable GROUP BY sub
),
text_joinable AS MATERIALIZED (
    SELECT hash, sub, weight FROM text_usable WHERE df >= 2
),
text_counted AS (  -- the text family's shared hashes per pair (joined to the pairs the tokens find)
    SELECT x.sub AS sa, y.sub AS sb, COUNT(*) AS shared, SUM(x.weight) AS shared_weight
    FROM text_joinable x
    JOIN text_joinable y ON x.hash = y.hash AND x.sub < y.sub
    GROUP BY x.sub, y.sub
),
tokenless AS (  -- the pairs of a submission without code token fingerprints (a file shorter than
                -- one k-gram of tokens), found by the text family alone
    SELECT tc.sa, tc.sb, 0 AS shared
    FROM text_counted tc
    JOIN subinfo ia ON ia.sub = tc.sa
    JOIN subinfo ib ON ib.sub = tc.sb
    WHERE (ia.tokens = 0 OR ib.tokens = 0) AND tc.shared >= $min_shared
      AND ($new_label IS NULL OR ia.is_new OR ib.is_new)
),
found AS (  -- the pairs to score: those the tokens find, and those of token-less submissions
    SELECT sa, sb, shared FROM counted
    UNION ALL
    SELECT sa, sb, shared FROM tokenless
),
scored AS (
    SELECT ia.submission AS name_a, ib.submission AS name_b, c.shared, ia.n AS na, ib.n AS nb,
           COALESCE(GREATEST(CAST(c.shared AS DOUBLE) / NULLIF(ia.n, 0),
                             CAST(c.shared AS DOUBLE) / NULLIF(ib.n, 0)), 0) AS cmax,
           CASE WHEN ta.n > 0 AND tb.n > 0
                THEN GREATEST(CAST(COALESCE(tc.shared, 0) AS DOUBLE) / ta.n,
                              CAST(COALESCE(tc.shared, 0) AS DOUBLE) / tb.n) END AS text_containment,
           -- T, the rarity-weighted larger containment of the text family (when both sides have it)
           CASE WHEN ta.weight > 0 AND tb.weight > 0
                THEN LEAST(1.0, GREATEST(COALESCE(tc.shared_weight, 0) / ta.weight,
                                         COALESCE(tc.shared_weight, 0) / tb.weight)) END AS t
    FROM found c
    JOIN subinfo ia ON ia.sub = c.sa
    JOIN subinfo ib ON ib.sub = c.sb
    LEFT JOIN text_sizes ta ON ta.sub = c.sa
    LEFT JOIN text_sizes tb ON tb.sub = c.sb
    LEFT JOIN text_counted tc ON tc.sa = c.sa AND tc.sb = c.sb
),
named AS (
    SELECT CASE WHEN s.name_a < s.name_b THEN s.name_a ELSE s.name_b END AS a,
           CASE WHEN s.name_a < s.name_b THEN s.name_b ELSE s.name_a END AS b,
           s.shared,
           CASE WHEN s.name_a < s.name_b THEN s.na ELSE s.nb END AS fingerprints_a,
           CASE WHEN s.name_a < s.name_b THEN s.nb ELSE s.na END AS fingerprints_b,
           s.cmax, s.text_containment,
           -- rounded: sums of weights differ in their last bits with the order threads add them in
           COALESCE(ROUND(GREATEST(POWER(s.cmax, 4) * (0.9 + 0.1 * s.t), s.t), 9), s.cmax) AS score
    FROM scored s
)
SELECT a, b, shared, fingerprints_a, fingerprints_b,
       COALESCE(CAST(shared AS DOUBLE) / NULLIF(fingerprints_a, 0), 0) AS containment_a,
       COALESCE(CAST(shared AS DOUBLE) / NULLIF(fingerprints_b, 0), 0) AS containment_b,
       COALESCE(CAST(shared AS DOUBLE) / NULLIF(fingerprints_a + fingerprints_b - shared, 0), 0) AS resemblance,
       text_containment, score
FROM named
WHERE ($min_score IS NULL OR score >= $min_score)
  AND (shared > 0 OR score > 0)  -- a token-less pair whose shared k-grams all weigh 0 (in every submission)
ORDER BY score DESC, cmax DESC, shared DESC, a, b
