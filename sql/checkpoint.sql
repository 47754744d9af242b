-- checkpoint.sql: write what the committed transactions changed into the index file, freeing the
-- blocks of rows they deleted for later writes (a merge of the runs, after each bucket:
-- store/merge.py). Fails while another connection of this process is inside a transaction.
-- DuckDB only: the DuckDB index's storage.
CHECKPOINT
