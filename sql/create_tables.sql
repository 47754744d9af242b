-- create_tables.sql: the tables of a winnowdb index (schema version 1).
-- Run once when an index is created. Everything a report needs lives here, so an index keeps
-- working after the original files moved or were deleted.
--
--   settings        key/value: k, w, normalizer, hash_version, schema_version, created_at, ...
--   documents       one row per indexed file (doc is the id used everywhere): its path, the
--                   submission it belongs to (its own path unless `add --submission-depth`),
--                   label (e.g. a year, for archive mode), kind ('document' or 'boilerplate'),
--                   content_hash (raw bytes) and normalized_hash (normalized text) for exact and
--                   lexical duplicates, sizes, fingerprint count, and a 64-bit simhash
--   document_texts  the decoded original text of each document (for reports and passages)
--   fingerprints    one row per winnowed fingerprint: hash (signed 64-bit), doc, pos (index of
--                   the k-gram in the normalized text), start_offset/end_offset (the k-gram's
--                   span in the original text, in characters, end exclusive)
CREATE TABLE settings (
    key VARCHAR NOT NULL,
    value VARCHAR NOT NULL
);
CREATE TABLE documents (
    doc INTEGER NOT NULL,
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
    added_at TIMESTAMP NOT NULL
);
CREATE TABLE document_texts (
    doc INTEGER NOT NULL,
    text VARCHAR NOT NULL
);
CREATE TABLE fingerprints (
    hash BIGINT NOT NULL,
    doc INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL
);
