-- create_views.sql: views for ad-hoc SQL over an index (recreated whenever winnowdb opens it).
--
--   document_fingerprints  distinct (hash, doc, submission, label) of ordinary documents
--   fingerprint_df         per hash: df = number of submissions containing it (counted over the
--                          whole index: the table shared_hashes keeps it for hashes with df >= 2)
--   default_max_df         the default cap on df, the one rule every query uses: a quarter of the
--                          submissions, clamped to 10..1000, and lowered (not below 10) where
--                          common fingerprints would make the pair-counting self-join exceed
--                          10 million rows (its cost grows as df^2: hashes(df) * df * (df-1) / 2
--                          rows each, read from the histogram of shared_hashes)
--   code_text_max_df       the text family's own lowering of the cap (the pair score: docs/score.md),
--                          from the table code_text_df (its df per hash):
--                          the highest df at which its pair-counting self-join stays within 1 million
--                          rows (not below 10), or NULL when it never exceeds them; pairs.sql and
--                          query_hit_sizes.sql use the smaller of it and the cap in force
--   pairs                  all-vs-all pair counts and scores with the default cap (built from pairs.sql)
CREATE OR REPLACE VIEW document_fingerprints AS
SELECT DISTINCT f.hash, f.doc, d.submission, d.label
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document';

CREATE OR REPLACE VIEW fingerprint_df AS
SELECT f.hash, COUNT(DISTINCT d.sub) AS df
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document'
GROUP BY f.hash;

CREATE OR REPLACE VIEW default_max_df AS
WITH sizes AS (
    SELECT COUNT(DISTINCT sub) AS submissions FROM documents WHERE kind = 'document'
),
hist AS (
    SELECT df, COUNT(*) AS hashes FROM shared_hashes GROUP BY df
),
cost AS (
    SELECT df, SUM(CAST(hashes AS DOUBLE) * df * (df - 1) / 2)
               OVER (ORDER BY df ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS join_rows
    FROM hist
),
budget AS (
    SELECT MAX(df) AS df FROM cost WHERE join_rows <= 10000000
),
quarter AS (
    SELECT LEAST(1000, GREATEST(10, CAST(FLOOR(s.submissions / 4.0) AS BIGINT))) AS max_df FROM sizes s
)
SELECT CASE
           WHEN (SELECT COUNT(*) FROM cost WHERE join_rows > 10000000) = 0 THEN q.max_df
           ELSE LEAST(q.max_df, GREATEST(10, COALESCE(b.df, 10)))
       END AS max_df
FROM quarter q
CROSS JOIN budget b;

CREATE OR REPLACE VIEW code_text_max_df AS
WITH hist AS (
    SELECT df, COUNT(*) AS hashes FROM code_text_df WHERE df >= 2 GROUP BY df
),
cost AS (
    SELECT df, SUM(CAST(hashes AS DOUBLE) * df * (df - 1) / 2)
               OVER (ORDER BY df ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS join_rows
    FROM hist
)
SELECT CASE WHEN (SELECT COUNT(*) FROM cost WHERE join_rows > 1000000) = 0 THEN NULL
            ELSE GREATEST(10, COALESCE((SELECT MAX(df) FROM cost WHERE join_rows <= 1000000), 10))
       END AS max_df;
