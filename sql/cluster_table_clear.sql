-- cluster_table_clear.sql: empty the clusters table before a new run is stored (same transaction).
DELETE FROM clusters
