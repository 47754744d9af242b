-- query_hits.sql: which indexed submissions share passages with one query document, best first.
-- Reads the relation query_found(doc, hash, query_fingerprints): the index's occurrences of the
-- query's usable hashes (query_found.sql's rows, registered by the caller). Its documents are
-- looked up by a join whose small side is their distinct ids, so DuckDB builds its hash table on
-- those (a few thousand) and not on every document. The query's own submission is left out after
-- grouping, by name (one per sub): else DuckDB compared every document's submission with $exclude.
-- The hits' sizes come next (query_hit_sizes.sql): they need the hits' own hashes, which the
-- caller gets from their texts (or hit_hashes_stored.sql). Returned are the $top best by the text
-- pair score estimated with a size for each hit read from documents.hashes (its largest document
-- found: the stored count of distinct hashes, too common ones included, so the estimate is at
-- most the exact score) and the $top sharing the most (the best by containment): up to twice
-- $top hits, which the caller ranks by their exact scores and cuts to $top.
-- Parameters: $exclude (VARCHAR or NULL), $min_shared (BIGINT), $top (BIGINT: how many of the
-- best hits are wanted, each way; NULL for all).
-- Columns: sub, submission, shared, query_fingerprints (the query's usable hashes).
WITH found_docs AS (
    SELECT DISTINCT doc FROM query_found
),
hit_docs AS (  -- the documents holding an occurrence
    SELECT d.doc, d.sub, d.submission, d.hashes
    FROM documents d JOIN found_docs x ON d.doc = x.doc
    WHERE d.kind = 'document'
),
hits AS (  -- with each hit's size estimated: its largest document's stored count of distinct hashes
    SELECT d.sub, MIN(d.submission) AS submission, COUNT(DISTINCT x.hash) AS shared, MAX(d.hashes) AS hashes
    FROM query_found x
    JOIN hit_docs d ON d.doc = x.doc
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
    CROSS JOIN (SELECT COALESCE(MAX(query_fingerprints), 0) AS n FROM query_found) AS q
)
SELECT r.sub, r.submission, r.shared, (SELECT MAX(query_fingerprints) FROM query_found) AS query_fingerprints
FROM ranked r
WHERE $top IS NULL OR r.by_score <= $top OR r.by_shared <= $top
ORDER BY r.by_score
