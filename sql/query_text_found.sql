-- query_text_found.sql: the submissions a query without code token fingerprints (a code file
-- shorter than one k-gram of tokens) shares its text family with: its hits, as pairs.sql finds the
-- pairs of such a file (the tokenless CTE there), with the same exclusions.
-- Reads the relations query_text_hashes(qid, hash) (the query's text family: its text in short
-- k-grams; qid 0) and query_docs(doc) (the query's own documents when it is indexed, whose rows
-- are not read; empty for a file that is not), registered by the caller.
-- A k-gram counts when its df (code_text_df: submissions holding it, boilerplate left out) is at
-- most the text family's cap (the smaller of $max_df and code_text_max_df), as in
-- text_evidence.sql, which then gives each hit its score T. The hits share no token: shared is 0
-- and so is query_fingerprints (the rows query_hit_sizes.sql reads as query_hit_rows).
-- Parameters: $max_df (BIGINT), $exclude (VARCHAR or NULL: the query's own submission),
-- $min_shared (BIGINT: the fewest k-grams of the text family a hit shares).
-- Columns: sub, submission, shared (0), query_fingerprints (0), text_shared (k-grams shared).
WITH text_cap AS (
    SELECT LEAST($max_df, COALESCE(v.max_df, $max_df)) AS max_df FROM code_text_max_df v
),
usable AS (  -- the query's k-grams that count: in at most the cap's submissions, not boilerplate
    SELECT DISTINCT q.hash
    FROM query_text_hashes q
    JOIN code_text_df f ON f.hash = q.hash
    CROSS JOIN text_cap c
    WHERE f.df <= c.max_df
),
found AS (
    SELECT d.sub, MIN(d.submission) AS submission, COUNT(DISTINCT t.hash) AS text_shared
    FROM code_text_hashes t
    JOIN documents d ON d.doc = t.doc
    WHERE t.hash IN (SELECT hash FROM usable) AND d.kind = 'document'
      AND t.doc NOT IN (SELECT doc FROM query_docs)
    GROUP BY d.sub
    HAVING ($exclude IS NULL OR MIN(d.submission) <> $exclude) AND COUNT(DISTINCT t.hash) >= $min_shared
)
SELECT sub, submission, 0 AS shared, 0 AS query_fingerprints, text_shared
FROM found
ORDER BY text_shared DESC, submission
