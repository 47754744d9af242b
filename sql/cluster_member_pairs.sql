-- cluster_member_pairs.sql: how similar is every pair of documents inside the same cluster?
-- Used to report each cluster's tightest and loosest pair (resemblance is not transitive: in a
-- chain A~B~C, A and C may share little). Only pairs inside one cluster are counted, so this is
-- far smaller than the all-pairs count. Clusters are of submissions, so two documents of one
-- submission are not a pair. A pair of the same cluster that shares no usable hash is absent (its
-- resemblance is 0).
-- Relations: usable_hashes(hash, doc, df) (cluster_usable_hashes.sql); cluster_assignment(doc,
-- cluster), the clustered representatives. Parameters: none.
-- Columns: cluster, a, b (doc ids, a < b), shared, fingerprints_a, fingerprints_b, resemblance,
-- containment_a, containment_b.
WITH clustered AS (
    SELECT u.hash, u.doc, u.df, c.cluster
    FROM usable_hashes u
    JOIN cluster_assignment c ON c.doc = u.doc
),
sizes AS (
    SELECT doc, COUNT(*) AS n
    FROM clustered
    GROUP BY doc
),
counted AS (
    SELECT x.cluster, x.doc AS a, y.doc AS b, COUNT(*) AS shared
    FROM clustered x
    JOIN clustered y ON y.hash = x.hash AND y.cluster = x.cluster AND x.doc < y.doc
    WHERE x.df >= 2
    GROUP BY x.cluster, x.doc, y.doc
)
SELECT c.cluster, c.a, c.b, c.shared, sa.n AS fingerprints_a, sb.n AS fingerprints_b,
       CAST(c.shared AS DOUBLE) / (sa.n + sb.n - c.shared) AS resemblance,
       CAST(c.shared AS DOUBLE) / sa.n AS containment_a,
       CAST(c.shared AS DOUBLE) / sb.n AS containment_b
FROM counted c
JOIN sizes sa ON sa.doc = c.a
JOIN sizes sb ON sb.doc = c.b
JOIN documents da ON da.doc = c.a
JOIN documents db ON db.doc = c.b
WHERE da.submission <> db.submission
ORDER BY c.cluster, c.a, c.b
