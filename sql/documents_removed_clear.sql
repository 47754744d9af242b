-- documents_removed_clear.sql: forget the removed documents once every one of their fingerprint
-- rows is deleted (store/purge.py; in the transaction of the last span).
-- DuckDB only: writes the DuckDB index.
DELETE FROM documents_removed
