-- sketch_min_s.sql: each document's sketch, Broder's MIN_s: the $s smallest of its usable
-- fingerprint hashes (all of them when it has fewer). Hashes are pseudo-random, so "smallest"
-- (signed 64-bit order, as everywhere in winnowdb) is a random sample of the set, and the same
-- sample in every document: Broder's random permutation.
-- Reads the relation usable_hashes(hash, doc, df) (cluster_usable_hashes.sql: boilerplate and very
-- common hashes already excluded). The caller materializes the result once per run as the
-- relation doc_sketches, read by sketch_pair_estimates.sql and super_shingle_candidates.sql.
-- Parameters: $s (BIGINT). Columns: doc, rnk (1 = smallest), hash.
WITH ranked AS (
    SELECT doc, hash, ROW_NUMBER() OVER (PARTITION BY doc ORDER BY hash) AS rnk
    FROM usable_hashes
)
SELECT doc, rnk, hash
FROM ranked
WHERE rnk <= $s
