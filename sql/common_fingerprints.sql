-- common_fingerprints.sql: the most widespread fingerprints, with one place each occurs.
-- What `stats` shows, so a user can spot common material they have not declared as boilerplate.
-- The kept document frequencies (shared_hashes) give the candidates: every shared hash at least
-- as frequent as the $limit_rows-th most frequent one; their occurrences (rows) break ties and
-- come with an example (read from the few row groups holding them: rows are stored ordered by
-- hash). An index with fewer shared hashes than $limit_rows uses common_fingerprints_counted.sql.
-- Parameters: $limit_rows (BIGINT). Columns: hash, df (submissions containing it, as pairs.sql
-- counts it), occurrences (rows), example_doc (the shortest document holding it, the smallest id
-- among equals), example_pos (the hash's first position there: stats fingerprints that document's
-- text again to show the k-gram's text, so a short one is cheap).
WITH lowest AS (
    SELECT MIN(df) AS df FROM (SELECT df FROM shared_hashes ORDER BY df DESC LIMIT $limit_rows) AS t
),
candidates AS (
    SELECT s.hash, s.df FROM shared_hashes s CROSS JOIN lowest l WHERE s.df >= l.df
),
occurrences AS MATERIALIZED (  -- read once (a planning hint; dropped for Spark)
    SELECT f.hash, f.doc, f.pos, d.chars
    FROM fingerprints f
    JOIN documents d ON d.doc = f.doc
    WHERE f.hash IN (SELECT hash FROM candidates) AND d.kind = 'document'
),
counts AS (
    SELECT hash, COUNT(*) AS occurrences, MIN(chars) AS example_chars
    FROM occurrences
    GROUP BY hash
),
most_common AS (
    SELECT c.hash, c.df, n.occurrences, n.example_chars
    FROM candidates c
    JOIN counts n ON n.hash = c.hash
    ORDER BY c.df DESC, n.occurrences DESC, c.hash
    LIMIT $limit_rows
),
examples AS (
    SELECT c.hash, MIN(o.doc) AS example_doc
    FROM most_common c
    JOIN occurrences o ON o.hash = c.hash AND o.chars = c.example_chars
    GROUP BY c.hash
)
SELECT c.hash, c.df, c.occurrences, e.example_doc, MIN(o.pos) AS example_pos
FROM most_common c
JOIN examples e ON e.hash = c.hash
JOIN occurrences o ON o.hash = c.hash AND o.doc = e.example_doc
GROUP BY c.hash, c.df, c.occurrences, e.example_doc
ORDER BY c.df DESC, c.occurrences DESC, c.hash
