-- hash_df_kept.sql: the kept document frequency (submissions) of those of some hashes found in two
-- or more submissions (shared_hashes); a hash not there is in at most one, and has no row.
-- DuckDB only: how an add keeps the DuckDB index's statistics (store/stats.py): the df of a hash
-- in shared_hashes is read here, so that hash_df_stored.sql counts only the others, each in one
-- submission at most (counting the rows of a hash in thousands of documents was most of an add's
-- statistics on a large index).
-- Reads the relation hashes_wanted(hash) the caller registers.
-- Parameters: $low, $high (BIGINT: a range holding every hash wanted).
-- Columns: hash, df.
SELECT s.hash, s.df
FROM shared_hashes s
WHERE s.hash BETWEEN $low AND $high AND s.hash IN (SELECT hash FROM hashes_wanted)
