-- common_fingerprints.sql: the most widespread fingerprints, with one place each occurs.
-- What `stats` shows, so a user can spot common material they have not declared as boilerplate.
-- The kept document frequencies (shared_hashes) give the candidates: every shared hash at least
-- as frequent as the $limit_rows-th most frequent one; their occurrences (rows) break ties and
-- come with an example (read from the few row groups holding them: rows are stored ordered by
-- hash). An index with fewer shared hashes than $limit_rows uses common_fingerprints_counted.sql.
-- Parameters: $limit_rows (BIGINT). Columns: hash, df (submissions containing it, as pairs.sql
-- counts it), occurrences (rows), example_doc, example_pos (the first position of the hash in the
-- example document: stats fingerprints that document's text again to show the k-gram's text).
WITH lowest AS (
    SELECT MIN(df) AS df FROM (SELECT df FROM shared_hashes ORDER BY df DESC LIMIT $limit_rows) AS t
),
candidates AS (
    SELECT s.hash, s.df FROM shared_hashes s CROSS JOIN lowest l WHERE s.df >= l.df
),
counts AS (
    SELECT f.hash, COUNT(*) AS occurrences, MIN(f.doc) AS example_doc
    FROM fingerprints f
    JOIN documents d ON d.doc = f.doc
    WHERE f.hash IN (SELECT hash FROM candidates) AND d.kind = 'document'
    GROUP BY f.hash
),
most_common AS (
    SELECT c.hash, c.df, n.occurrences, n.example_doc
    FROM candidates c
    JOIN counts n ON n.hash = c.hash
    ORDER BY c.df DESC, n.occurrences DESC, c.hash
    LIMIT $limit_rows
)
SELECT c.hash, c.df, c.occurrences, c.example_doc,
       MIN(f.pos) AS example_pos
FROM most_common c
JOIN fingerprints f ON f.hash = c.hash AND f.doc = c.example_doc
WHERE f.hash IN (SELECT hash FROM most_common)
GROUP BY c.hash, c.df, c.occurrences, c.example_doc
ORDER BY c.df DESC, c.occurrences DESC, c.hash
