-- table_row_groups.sql: how many row groups one table of the index is stored in (store/room.py:
-- what deleting rows of it can pin in memory grows with the row groups they are in; an index
-- that grew past 2 GB holds groups of 8,192 rows and of 32,768).
-- DuckDB only: the DuckDB index's storage.
-- Parameters: $table (VARCHAR: the table's name). Columns: row_groups.
SELECT COUNT(DISTINCT row_group_id) AS row_groups FROM pragma_storage_info($table)
