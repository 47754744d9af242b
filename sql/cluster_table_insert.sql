-- cluster_table_insert.sql: store a clustering run; new_clusters is the run's Arrow table,
-- registered by the caller, with the columns of cluster_table_create.sql in order.
INSERT INTO clusters
SELECT doc, cluster, representative, cluster_size, method, min_resemblance, min_containment,
       max_df, clustered_at
FROM new_clusters
