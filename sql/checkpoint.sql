-- checkpoint.sql: write what the committed transactions changed into the index file, freeing the
-- blocks of rows they deleted for later writes and what those deletes pinned (a merge of the
-- runs, store/merge.py; a removal's purge, store/purge.py; through Store.checkpoint). Fails while
-- another connection of this process is inside a transaction.
-- DuckDB only: the DuckDB index's storage.
CHECKPOINT
