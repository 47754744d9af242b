-- default_max_df_value.sql: the default --max-df of the index, as the default_max_df view
-- computes it (create_views.sql).
-- Columns: max_df.
SELECT max_df FROM default_max_df
