-- query_found.sql: the index's occurrences of one query document's usable hashes (the first step of
-- a query; query_hits.sql ranks the submissions they are in).
-- The query's fingerprints are the relation query_fingerprints(hash); the query may itself be
-- indexed: then $exclude names its submission (query_hits.sql leaves out its occurrences), and
-- the relation query_docs(doc) holds its own documents, whose rows are not returned (empty for
-- a file that is not indexed).
-- An indexed query looks up its usable hashes as any other does when common_hashes serves
-- $max_df (the default max-df or above, on a DuckDB index); otherwise shared_hashes is read
-- anyway, and it looks up only those in two or more submissions (any other is in its own
-- submission alone): always so on Spark, where $common_floor is above any max-df. Looking an
-- indexed query's hashes up in shared_hashes first to skip those cost more than it saved: at
-- 1,000,000 documents a read of 16M of its rows, 8-14 ms of a query (bench/RESULTS.md, Read path).
-- The same exclusions as pairs.sql: boilerplate hashes, and hashes in more than $max_df
-- submissions (their df is kept in shared_hashes; a hash not there is in at most one), count
-- neither as shared nor in the query's size. The too common ones are read from common_hashes,
-- the few shared hashes above the default max-df ($common_floor, meta.common_hashes_max_df),
-- when $max_df is at least that; else from shared_hashes. Only the index's occurrences of the
-- query's usable hashes are read: fingerprints are stored ordered by hash, so DuckDB reads the
-- row groups that can hold them.
-- Every lookup joins the few query hashes to the big tables (never the other way round, never an
-- IN over a whole table under an OR), so DuckDB pushes the query's hashes into each scan as an
-- IN filter and reads only the row groups that can hold them (bench/results/query_plan.md).
-- The occurrences are returned, not joined to the documents here: DuckDB cannot know how few
-- they are when it plans, and built its join's hash table on every document (1,000,000
-- documents: ~17 ms of a scan and ~16 ms of building per query); the caller passes them to
-- query_hits.sql, where their count is known.
-- Parameters: $max_df (BIGINT), $common_floor (BIGINT: the max-df common_hashes holds the hashes
-- above; larger than any $max_df where it holds none), $exclude (VARCHAR or NULL).
-- Columns: doc, hash (one row per occurrence), query_fingerprints (the query's usable hashes,
-- the same on every row).
WITH q AS (
    SELECT DISTINCT hash FROM query_fingerprints
),
q_df AS (  -- the query's hashes kept in shared_hashes (in two or more submissions), with their df:
           -- read when common_hashes does not serve $max_df (else DuckDB prunes this scan: its
           -- condition is false)
    SELECT s.hash, s.df FROM shared_hashes s JOIN q ON s.hash = q.hash
    WHERE $max_df < $common_floor
),
q_common AS (  -- the query's hashes in more than $max_df submissions
    SELECT c.hash FROM common_hashes c JOIN q ON c.hash = q.hash
    WHERE c.df > $max_df AND $max_df >= $common_floor
    UNION ALL
    SELECT hash FROM q_df WHERE df > $max_df AND $max_df < $common_floor
),
q_usable AS (  -- the query's hashes that count: not too common, not boilerplate
    SELECT q.hash FROM q
    WHERE NOT EXISTS (SELECT 1 FROM q_common c WHERE c.hash = q.hash)
      AND NOT EXISTS (SELECT 1 FROM boilerplate_hashes b WHERE b.hash = q.hash)
),
q_lookup AS (  -- the hashes that can be found in another submission
    SELECT hash FROM q_usable WHERE $exclude IS NULL OR $max_df >= $common_floor
    UNION ALL
    SELECT u.hash FROM q_usable u JOIN q_df ON q_df.hash = u.hash WHERE $exclude IS NOT NULL AND $max_df < $common_floor
)
SELECT f.doc, f.hash, (SELECT COUNT(*) FROM q_usable) AS query_fingerprints
FROM fingerprints f
WHERE f.hash IN (SELECT hash FROM q_lookup) AND f.doc NOT IN (SELECT doc FROM query_docs)
