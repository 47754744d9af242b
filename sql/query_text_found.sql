-- query_text_found.sql: the hits a query finds by its text family alone, as pairs.sql finds the
-- pairs of a submission without code token fingerprints (the tokenless CTE there), with the same
-- exclusions: for a query without token fingerprints (a code file shorter than one k-gram of
-- tokens), every submission its text family shares a k-gram with; for any other query
-- ($tokenless_only), only the submissions without token fingerprints, which query_hits.sql cannot
-- find.
-- Reads the relations query_text_hashes(qid, hash) (the query's text family: its text in short
-- k-grams; qid 0) and query_docs(doc) (the query's own documents when it is indexed, whose rows
-- are not read; empty for a file that is not), registered by the caller.
-- A k-gram counts when its df (code_text_df: submissions holding it, boilerplate left out) is at
-- most the text family's cap (the smaller of $max_df and code_text_max_df), as in
-- text_evidence.sql, which then gives each hit its score T. The hits share no token: shared is 0
-- (the rows query_hit_sizes.sql reads as query_hit_rows, with the token hits of query_hits.sql).
-- Parameters: $max_df (BIGINT), $exclude (VARCHAR or NULL: the query's own submission),
-- $min_shared (BIGINT: the fewest k-grams of the text family a hit shares), $tokenless_only
-- (BOOLEAN).
-- Columns: sub, submission, shared (0), query_fingerprints (0: the caller gives the query's own
-- count), text_shared (k-grams shared).
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
tokenless AS (  -- the submissions without code token fingerprints (documents.hashes 0 in each)
    SELECT sub FROM documents
    WHERE kind = 'document' AND sub IN (SELECT sub FROM documents WHERE kind = 'document' AND hashes = 0)
    GROUP BY sub
    HAVING MAX(hashes) = 0
),
candidates AS (  -- the documents a hit may come from: few when $tokenless_only, so the lookup below
                 -- reads only their rows of code_text_hashes (stored in document order)
    SELECT doc, sub, submission FROM documents
    WHERE kind = 'document' AND doc NOT IN (SELECT doc FROM query_docs)
      AND (NOT $tokenless_only OR sub IN (SELECT sub FROM tokenless))
),
found AS (
    SELECT c.sub, MIN(c.submission) AS submission, COUNT(DISTINCT t.hash) AS text_shared
    FROM code_text_hashes t
    JOIN candidates c ON c.doc = t.doc
    WHERE t.hash IN (SELECT hash FROM usable)
    GROUP BY c.sub
    HAVING ($exclude IS NULL OR MIN(c.submission) <> $exclude) AND COUNT(DISTINCT t.hash) >= $min_shared
)
SELECT sub, submission, 0 AS shared, 0 AS query_fingerprints, text_shared
FROM found
ORDER BY text_shared DESC, submission
