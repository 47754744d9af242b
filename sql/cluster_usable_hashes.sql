-- cluster_usable_hashes.sql: which fingerprint hashes of which documents take part in sketching and clustering?
-- The documents are the relation member_docs(doc), registered by the caller: for clustering, one
-- representative per group of duplicates (identical documents are folded first, as in the
-- paper). Excluded, as in the core: hashes of boilerplate documents, and very common hashes,
-- found in more than $max_df of the member documents. Document frequency is counted over the
-- members, that is after duplicates are folded, so a thousand copies of one file do not make its
-- text "common". A hash repeated inside a document counts once.
-- The caller materializes the result once per run as the relation usable_hashes (a temporary
-- table in DuckDB; a cached temporary view in Spark), which the cluster_*, sketch_* and
-- super_shingle_* queries read.
-- Parameters: $max_df (BIGINT). Columns: hash, doc, df (member documents containing the hash).
WITH members AS (
    SELECT DISTINCT doc FROM member_docs
),
member_hashes AS (
    SELECT DISTINCT f.hash, f.doc
    FROM fingerprints f
    JOIN members m ON m.doc = f.doc
    LEFT JOIN boilerplate_hashes b ON b.hash = f.hash
    WHERE b.hash IS NULL
),
counted AS (
    SELECT hash, doc, COUNT(*) OVER (PARTITION BY hash) AS df
    FROM member_hashes
)
SELECT hash, doc, df
FROM counted
WHERE df <= $max_df
