-- migrate_9_to_10.sql: schema 9 -> 10, the documents removed whose fingerprint rows are still to
-- be deleted (issue 20). A removal of documents spread through a big index deleted their rows in
-- the transaction that removed them, and DuckDB pins what a transaction deletes until it ends:
-- 10,000 documents of a 1,000,000-document index needed ~9 GB. Such a removal now records them
-- here and deletes their rows a span of hash buckets at a time after it commits (store/purge.py).
-- DuckDB only: writes the DuckDB index.
CREATE TABLE IF NOT EXISTS documents_removed (
    doc INTEGER NOT NULL,
    fingerprints BIGINT NOT NULL
);
