-- shared_df_of.sql: the df shared_hashes keeps for some hashes (those in two or more
-- submissions; a hash with no row here is in one at most).
-- DuckDB only: how a removal keeps the DuckDB index's statistics (store/removal.py).
-- Reads the relation hashes_wanted(hash) the caller registers.
-- Parameters: $low, $high (BIGINT: the smallest and largest hash wanted: shared_hashes is
-- ordered by hash, so DuckDB reads only the row groups of that range).
-- Columns: hash, df.
SELECT s.hash, s.df
FROM shared_hashes s
WHERE s.hash BETWEEN $low AND $high AND s.hash IN (SELECT hash FROM hashes_wanted)
