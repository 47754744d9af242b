-- cluster_table_create.sql: the clusters table, written by `winnowdb clusters` (created on first use).
-- One row per ordinary document at the time of the last `clusters` run (a snapshot: documents
-- added since have no row and cluster sizes are not updated until it runs again; a document that
-- is removed or changed loses its row, and its id is never given to another document):
--   doc              the document (documents.doc)
--   cluster          its cluster: the smallest doc id in the cluster (a document similar to no
--                    other is a cluster of one, its own id). Clusters are of submissions: all
--                    documents of one submission are in the same cluster
--   representative   the document it was folded into as an identical / lexically equivalent /
--                    fingerprint equivalent duplicate before clustering (its own id otherwise)
--   cluster_size     number of documents in its cluster (all documents of its submissions)
--   method, min_resemblance, min_containment, max_df, clustered_at: how the run was made
CREATE TABLE IF NOT EXISTS clusters (
    doc INTEGER NOT NULL,
    cluster INTEGER NOT NULL,
    representative INTEGER NOT NULL,
    cluster_size INTEGER NOT NULL,
    method VARCHAR NOT NULL,
    min_resemblance DOUBLE NOT NULL,
    min_containment DOUBLE,
    max_df BIGINT NOT NULL,
    clustered_at TIMESTAMP NOT NULL
)
