-- migrate_4_to_5.sql: schema 4 -> 5, no UNIQUE index on the documents' paths (issue 19).
-- DuckDB only: writes the DuckDB index.
-- documents and documents_pending are made again without UNIQUE(path) (DuckDB cannot drop a
-- constraint), with the same rows in the same order; add keeps one row per path and
-- `winnowdb check` verifies it (create_tables.sql says why).
CREATE TABLE documents_v5 (
    doc INTEGER NOT NULL PRIMARY KEY,
    path VARCHAR NOT NULL,
    submission VARCHAR NOT NULL,
    label VARCHAR,
    kind VARCHAR NOT NULL,
    normalizer VARCHAR NOT NULL,
    content_hash VARCHAR NOT NULL,
    normalized_hash VARCHAR NOT NULL,
    encoding VARCHAR NOT NULL,
    bytes BIGINT NOT NULL,
    chars BIGINT NOT NULL,
    units BIGINT NOT NULL,
    fingerprints BIGINT NOT NULL,
    simhash BIGINT NOT NULL,
    added_at TIMESTAMP NOT NULL,
    sub INTEGER NOT NULL,
    hashes BIGINT NOT NULL
);
INSERT INTO documents_v5
SELECT doc, path, submission, label, kind, normalizer, content_hash, normalized_hash, encoding, bytes, chars,
       units, fingerprints, simhash, added_at, sub, hashes
FROM documents
ORDER BY doc;
DROP TABLE documents;
ALTER TABLE documents_v5 RENAME TO documents;

CREATE TABLE documents_pending_v5 (
    doc INTEGER NOT NULL PRIMARY KEY,
    path VARCHAR NOT NULL,
    submission VARCHAR NOT NULL,
    label VARCHAR,
    kind VARCHAR NOT NULL,
    normalizer VARCHAR NOT NULL,
    content_hash VARCHAR NOT NULL,
    normalized_hash VARCHAR NOT NULL,
    encoding VARCHAR NOT NULL,
    bytes BIGINT NOT NULL,
    chars BIGINT NOT NULL,
    units BIGINT NOT NULL,
    fingerprints BIGINT NOT NULL,
    simhash BIGINT NOT NULL,
    added_at TIMESTAMP NOT NULL,
    sub INTEGER NOT NULL,
    hashes BIGINT NOT NULL,
    replaces INTEGER
);
INSERT INTO documents_pending_v5
SELECT doc, path, submission, label, kind, normalizer, content_hash, normalized_hash, encoding, bytes, chars,
       units, fingerprints, simhash, added_at, sub, hashes, replaces
FROM documents_pending
ORDER BY doc;
DROP TABLE documents_pending;
ALTER TABLE documents_pending_v5 RENAME TO documents_pending;
