-- migrate_1_to_2.sql: upgrade a schema-1 index (winnowdb 0.1 before the store kept statistics) to schema 2.
-- DuckDB only: rewrites the DuckDB index's own tables, in the caller's transaction.
-- What changes: winnowdb's bookkeeping leaves the user-facing settings table for its own meta
-- table; settings, documents and document_texts get their keys; documents get the id of their
-- submission (sub: its smallest doc id, as schema 1 computed it in every query) and their
-- number of distinct fingerprint hashes (hashes); fingerprints are rewritten ordered by hash
-- (each add does that for its own rows from now on); shared_hashes and boilerplate_hashes
-- (views in schema 1) become tables kept up to date by add and remove; documents_pending (empty)
-- holds what an add has committed before its fingerprints are stored; meta records how many
-- distinct hashes the ordinary documents hold.
-- The views are made again by the open that runs this (create_views.sql).
DROP VIEW IF EXISTS pairs;
DROP VIEW IF EXISTS default_max_df;
DROP VIEW IF EXISTS fingerprint_df;
DROP VIEW IF EXISTS document_fingerprints;
DROP VIEW IF EXISTS boilerplate_hashes;

CREATE TABLE meta (
    key VARCHAR NOT NULL PRIMARY KEY,
    value VARCHAR NOT NULL
);
INSERT INTO meta
SELECT key, MIN(value) FROM settings WHERE key IN ('max_removed_doc') GROUP BY key;

CREATE TABLE settings_v2 (
    key VARCHAR NOT NULL PRIMARY KEY,
    value VARCHAR NOT NULL
);
INSERT INTO settings_v2
SELECT key, MIN(value) FROM settings
WHERE key NOT IN ('views_digest', 'max_removed_doc', 'default_max_df_cache')
GROUP BY key;
DROP TABLE settings;
ALTER TABLE settings_v2 RENAME TO settings;

CREATE TABLE documents_v2 (
    doc INTEGER NOT NULL PRIMARY KEY,
    path VARCHAR NOT NULL UNIQUE,
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
INSERT INTO documents_v2
SELECT d.doc, d.path, d.submission, d.label, d.kind, d.normalizer, d.content_hash, d.normalized_hash,
       d.encoding, d.bytes, d.chars, d.units, d.fingerprints, d.simhash, d.added_at,
       MIN(d.doc) OVER (PARTITION BY d.submission) AS sub,
       COALESCE(h.hashes, 0) AS hashes
FROM documents d
LEFT JOIN (SELECT doc, COUNT(DISTINCT hash) AS hashes FROM fingerprints GROUP BY doc) AS h ON h.doc = d.doc
ORDER BY d.doc;
DROP TABLE documents;
ALTER TABLE documents_v2 RENAME TO documents;

CREATE TABLE documents_pending (
    doc INTEGER NOT NULL PRIMARY KEY,
    path VARCHAR NOT NULL UNIQUE,
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

CREATE TABLE document_texts_v2 (
    doc INTEGER NOT NULL PRIMARY KEY,
    text VARCHAR NOT NULL
);
INSERT INTO document_texts_v2 SELECT doc, text FROM document_texts ORDER BY doc;
DROP TABLE document_texts;
ALTER TABLE document_texts_v2 RENAME TO document_texts;

CREATE TABLE fingerprints_v2 (
    hash BIGINT NOT NULL,
    doc INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL
);
INSERT INTO fingerprints_v2 SELECT hash, doc, pos, start_offset, end_offset FROM fingerprints ORDER BY hash, doc, pos;
DROP TABLE fingerprints;
ALTER TABLE fingerprints_v2 RENAME TO fingerprints;

CREATE TABLE shared_hashes (
    hash BIGINT NOT NULL,
    df INTEGER NOT NULL
);
INSERT INTO shared_hashes
SELECT f.hash, COUNT(DISTINCT d.sub) AS df
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document'
GROUP BY f.hash
HAVING COUNT(DISTINCT d.sub) >= 2
ORDER BY f.hash;

CREATE TABLE boilerplate_hashes (
    hash BIGINT NOT NULL
);
INSERT INTO boilerplate_hashes
SELECT DISTINCT f.hash
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'boilerplate'
ORDER BY f.hash;

INSERT INTO meta
SELECT 'distinct_hashes', CAST(COUNT(DISTINCT f.hash) AS VARCHAR)
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document';
