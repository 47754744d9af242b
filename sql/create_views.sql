-- create_views.sql: views for ad-hoc SQL over an index (recreated whenever winnowdb opens it).
--
--   document_fingerprints  distinct (hash, doc, submission, label) of ordinary documents
--   boilerplate_hashes     every hash that occurs in a document added with --boilerplate
--   fingerprint_df         per hash: df = number of submissions containing it
--   default_max_df         the default cap on df: a quarter of the submissions, clamped to 10..1000,
--                          and lowered (not below 10) where common fingerprints would make the
--                          pair-counting self-join exceed 20 million rows (its cost grows as df^2);
--                          pairs.sql computes the same rule from its own counts when $max_df is NULL
--   pairs                  all-vs-all pair counts with the default cap (built from pairs.sql)
CREATE OR REPLACE VIEW document_fingerprints AS
SELECT DISTINCT f.hash, f.doc, d.submission, d.label
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document';

CREATE OR REPLACE VIEW boilerplate_hashes AS
SELECT DISTINCT f.hash
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'boilerplate';

CREATE OR REPLACE VIEW fingerprint_df AS
WITH subs AS (  -- submissions keyed by an integer (their smallest doc id): cheaper to count
    SELECT doc, MIN(doc) OVER (PARTITION BY submission) AS sub
    FROM documents
    WHERE kind = 'document'
)
SELECT hash, COUNT(*) AS df
FROM (SELECT DISTINCT f.hash, s.sub FROM fingerprints f JOIN subs s ON s.doc = f.doc) AS held
GROUP BY hash;

CREATE OR REPLACE VIEW default_max_df AS
WITH sizes AS (
    SELECT COUNT(DISTINCT submission) AS submissions FROM documents WHERE kind = 'document'
),
hist AS (
    SELECT df, COUNT(*) AS hashes FROM fingerprint_df WHERE df >= 2 GROUP BY df
),
cost AS (
    SELECT df, SUM(CAST(hashes AS DOUBLE) * df * (df - 1) / 2)
               OVER (ORDER BY df ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS join_rows
    FROM hist
),
budget AS (
    SELECT MAX(df) AS df FROM cost WHERE join_rows <= 20000000
)
SELECT CASE
           WHEN (SELECT COUNT(*) FROM cost WHERE join_rows > 20000000) = 0
               THEN LEAST(1000, GREATEST(10, CAST(FLOOR(s.submissions / 4.0) AS BIGINT)))
           ELSE LEAST(1000, GREATEST(10, CAST(FLOOR(s.submissions / 4.0) AS BIGINT)),
                      GREATEST(10, COALESCE(b.df, 10)))
       END AS max_df
FROM sizes s
CROSS JOIN budget b;
