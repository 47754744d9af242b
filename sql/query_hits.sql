-- query_hits.sql: which indexed submissions share passages with one query document, best first.
-- The query's fingerprints are the relation query_fingerprints(hash); the query may itself be
-- indexed (then $exclude names its submission so it does not find itself).
-- The same exclusions as pairs.sql: boilerplate hashes, and hashes in more than $max_df
-- submissions (their df is kept in shared_hashes; a hash not there is in at most one), count
-- neither as shared nor in the query's size. The too common ones are read from common_hashes,
-- the few shared hashes above the default max-df ($common_floor, meta.common_hashes_max_df),
-- when $max_df is at least that; else from shared_hashes. Only the index's occurrences of the
-- query's usable hashes are read: fingerprints are stored ordered by hash, so DuckDB reads the row groups that
-- can hold them. An indexed query looks up only its hashes kept in shared_hashes: any other is
-- in its own submission alone, which it does not report. The hits' sizes come next
-- (query_hit_sizes.sql): they need the hits' own hashes, which the caller gets from their texts
-- (or hit_hashes_stored.sql). Returned are the $top best by the text pair score estimated with
-- a size for each hit read from documents.hashes (its largest document found: the stored count
-- of distinct hashes, too common ones included, so the estimate is at most the exact score) and
-- the $top sharing the most (the best by containment): up to twice $top hits, which the caller
-- ranks by their exact scores and cuts to $top.
-- Every lookup joins the few query hashes to the big tables (never the other way round, never an
-- IN over a whole table under an OR), so DuckDB pushes the query's hashes into each scan as an
-- IN filter and reads only the row groups that can hold them (bench/results/query_plan.md).
-- The occurrences found are kept apart (found, MATERIALIZED: a planning hint, dropped for Spark)
-- before they meet the documents, and the query's own submission is left out after grouping,
-- by name (one per sub): else DuckDB joined every document to the row groups' candidate rows
-- and compared every document's submission with $exclude (1M documents: 239 -> 161-213 ms).
-- Parameters: $max_df (BIGINT), $common_floor (BIGINT: the max-df common_hashes holds the hashes
-- above; larger than any $max_df where it holds none), $exclude (VARCHAR or NULL), $min_shared
-- (BIGINT), $top (BIGINT: how many of the best hits are wanted, each way; NULL for all).
-- Columns: sub, submission, shared, query_fingerprints (the query's usable hashes).
WITH q AS (
    SELECT DISTINCT hash FROM query_fingerprints
),
q_df AS (  -- the query's hashes kept in shared_hashes (in two or more submissions), with their df:
           -- read for an indexed query, and for the too common ones when common_hashes does not
           -- serve $max_df (else DuckDB prunes this scan: its condition is false)
    SELECT s.hash, s.df FROM shared_hashes s JOIN q ON s.hash = q.hash
    WHERE $exclude IS NOT NULL OR $max_df < $common_floor
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
    SELECT hash FROM q_usable WHERE $exclude IS NULL
    UNION ALL
    SELECT u.hash FROM q_usable u JOIN q_df ON q_df.hash = u.hash WHERE $exclude IS NOT NULL
),
found AS MATERIALIZED (  -- the index's occurrences of those hashes: a few row groups read
    SELECT f.doc, f.hash FROM fingerprints f WHERE f.hash IN (SELECT hash FROM q_lookup)
),
hits AS (  -- with each hit's size estimated: its largest document's stored count of distinct hashes
    SELECT d.sub, MIN(d.submission) AS submission, COUNT(DISTINCT x.hash) AS shared, MAX(d.hashes) AS hashes
    FROM found x
    JOIN documents d ON d.doc = x.doc
    WHERE d.kind = 'document'
    GROUP BY d.sub
    HAVING COUNT(DISTINCT x.hash) >= $min_shared AND ($exclude IS NULL OR MIN(d.submission) <> $exclude)
),
ranked AS (  -- by the pair score of text, the larger containment, estimated with the stored sizes;
             -- and by shared, the containment
    SELECT h.sub, h.submission, h.shared,
           ROW_NUMBER() OVER (ORDER BY GREATEST(CAST(h.shared AS DOUBLE) / GREATEST(q.n, 1),
                                                CAST(h.shared AS DOUBLE) / GREATEST(h.hashes, h.shared)) DESC,
                                       h.shared DESC, h.submission) AS by_score,
           ROW_NUMBER() OVER (ORDER BY h.shared DESC, h.submission) AS by_shared
    FROM hits h
    CROSS JOIN (SELECT COUNT(*) AS n FROM q_usable) AS q
)
SELECT r.sub, r.submission, r.shared, (SELECT COUNT(*) FROM q_usable) AS query_fingerprints
FROM ranked r
WHERE $top IS NULL OR r.by_score <= $top OR r.by_shared <= $top
ORDER BY r.by_score
