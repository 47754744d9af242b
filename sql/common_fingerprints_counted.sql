-- common_fingerprints_counted.sql: the most widespread fingerprints, counted over every stored row.
-- What `stats` shows when the index has fewer shared hashes than it lists (common_fingerprints.sql
-- lists the kept shared hashes otherwise): then hashes in one submission are listed too.
-- Parameters: $limit_rows (BIGINT). Columns: hash, df (submissions containing it, as pairs.sql
-- counts it), occurrences (rows), example_doc (the shortest document holding it, the smallest id
-- among equals), example_pos (the hash's first position there: stats fingerprints that document's
-- text again to show the k-gram's text, so a short one is cheap).
-- Counting distinct submissions for every hash is the costly part, so it is done only for the
-- hashes that can be in the answer: a hash's df is at most its occurrences, and the answer's
-- smallest df is at least the smallest df among the $limit_rows hashes with the most occurrences,
-- so hashes with fewer occurrences than that are never counted (the answer stays exact). The
-- $limit_rows most common hashes are chosen first; only they are looked up again for an example.
WITH subs AS (
    SELECT doc, sub, chars FROM documents WHERE kind = 'document'
),
occ AS (
    SELECT f.hash, COUNT(*) AS occurrences
    FROM fingerprints f
    JOIN subs s ON s.doc = f.doc
    GROUP BY f.hash
),
probe AS (
    SELECT hash FROM occ ORDER BY occurrences DESC, hash LIMIT $limit_rows
),
probe_df AS (
    SELECT f.hash, COUNT(DISTINCT s.sub) AS df
    FROM fingerprints f
    JOIN subs s ON s.doc = f.doc
    JOIN probe p ON p.hash = f.hash
    GROUP BY f.hash
),
lowest AS (  -- 0 when there are fewer hashes than $limit_rows: then every hash is examined
    SELECT CASE WHEN COUNT(*) < $limit_rows THEN 0 ELSE MIN(df) END AS df FROM probe_df
),
candidates AS (
    SELECT o.hash FROM occ o CROSS JOIN lowest l WHERE o.occurrences >= l.df
),
counts AS (
    SELECT f.hash, COUNT(DISTINCT s.sub) AS df, COUNT(*) AS occurrences, MIN(s.chars) AS example_chars
    FROM fingerprints f
    JOIN subs s ON s.doc = f.doc
    JOIN candidates c ON c.hash = f.hash
    GROUP BY f.hash
),
most_common AS (
    SELECT hash, df, occurrences, example_chars
    FROM counts
    ORDER BY df DESC, occurrences DESC, hash
    LIMIT $limit_rows
),
examples AS (
    SELECT c.hash, MIN(f.doc) AS example_doc
    FROM most_common c
    JOIN fingerprints f ON f.hash = c.hash
    JOIN subs s ON s.doc = f.doc AND s.chars = c.example_chars
    GROUP BY c.hash
)
SELECT c.hash, c.df, c.occurrences, e.example_doc,
       MIN(f.pos) AS example_pos
FROM most_common c
JOIN examples e ON e.hash = c.hash
JOIN fingerprints f ON f.hash = c.hash AND f.doc = e.example_doc
GROUP BY c.hash, c.df, c.occurrences, e.example_doc
ORDER BY c.df DESC, c.occurrences DESC, c.hash
