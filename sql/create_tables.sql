-- create_tables.sql: the tables of a winnowdb index (schema version 10).
-- Run once when an index is created. Everything a report needs lives here, so an index keeps
-- working after the original files moved or were deleted.
--
--   settings           key/value: how the index fingerprints (k, w, normalizer, hash_version,
--                      ...), fixed when it is created; what a user may rely on
--   meta               key/value: winnowdb's own bookkeeping (views digest, highest removed id,
--                      counters, the last document whose fingerprints are stored, the runs of
--                      fingerprints stored since the last merge); may change between versions
--   documents          one row per indexed file (doc is the id used everywhere): its path, the
--                      submission it belongs to (its own path unless `add --submission-depth`)
--                      and that submission's id (sub), label (e.g. a year, for archive mode),
--                      kind ('document' or 'boilerplate'), content_hash (raw bytes) and
--                      normalized_hash (normalized text) for exact and lexical duplicates, sizes,
--                      fingerprint rows and distinct fingerprint hashes, a 64-bit simhash, and
--                      mtime_ns, ctime_ns: the file's modification and status change times (ns
--                      since the epoch) as the add that read it found them, or NULL when it had
--                      changed in the 2 s before, or while it was read (or the row was
--                      imported). An add takes a file whose size and times are still these for
--                      unchanged without reading it (ingest/unchanged.py)
--   documents_pending  documents an add has read and committed but whose fingerprints are not
--                      stored yet (an add moves them into documents at its end, with their
--                      fingerprints; one it did not finish leaves them here, and the next write
--                      fingerprints them again from their stored texts); read by nothing else
--   document_texts     the decoded original text of each document (for reports and passages)
--   fingerprints       one row per selected fingerprint: hash (signed 64-bit), doc, pos (index of
--                      the k-gram in the normalized text). A k-gram's span in the original text is
--                      not stored (since schema 7): compare, query and report fingerprint the
--                      stored text again, which gives the same rows with their spans. Each add writes
--                      its rows ordered by hash, in row groups of 8,192 rows (32,768 in a file of
--                      2 GB or more, or that an add will make so: store/dbfile.py), so looking a
--                      hash up reads few rows.
--   shared_hashes      every hash found in two or more submissions, with df: how many (the
--                      document frequency pairs count; kept up to date by add and remove)
--   common_hashes      the shared_hashes rows above the default --max-df remembered with them
--                      (meta.common_hashes_max_df): the hashes too common to count, which a
--                      query reads here instead of scanning every df (kept by every write)
--   boilerplate_hashes every hash of a document added with --boilerplate (once each)
--   code_text_hashes   the second family of evidence of code documents: the distinct hashes of
--                      their text read as prose in short k-grams (settings code_text_k and
--                      code_text_w), identifiers, literals and comments kept, where the code
--                      tokens keep only the structure; pairs.sql's score uses both (issue 21).
--                      Written with the documents' texts; empty for text documents
--   code_text_df       each hash of the text family with df, the number of submissions holding
--                      it (hashes of boilerplate documents left out): the pair score's weights
--                      and caps read it (kept by every write: an add or removal counts its
--                      documents' hashes again, appended in hash order, a large one the whole
--                      table; `check` counts it again: sql/code_text_df_counted.sql)
--   documents_removed  documents removed whose fingerprint rows are not all deleted yet, with
--                      how many rows each had: a removal whose deletes would pin more memory than
--                      one transaction may (store/purge.py) removes the documents and records
--                      them here, then deletes their rows a span of hash buckets at a time, a
--                      checkpoint between; one that was stopped is finished by the next add or
--                      remove. Every read joins documents, so those rows count nowhere meanwhile
--
-- A path has one row in documents (and in documents_pending). add keeps it so: a file's new
-- version replaces its row in the transaction that indexes it, and one add lists each file once;
-- `winnowdb check` verifies it (check_duplicate_paths.sql). Since schema 5 no UNIQUE index
-- enforces it as well: keeping one cost a 100,000-document add about 4 s of its 30 s (an index
-- entry per path in both tables, bench/RESULTS.md). Since schema 8 a plain index on
-- documents.path (documents_path: no constraint, documents only, filled once per add when its
-- documents move in) lets query, compare and report find the document at a path without reading
-- every path (1,000,000 documents: 17 ms -> 0.5 ms a lookup; side_document_at_path.sql).
CREATE TABLE settings (
    key VARCHAR NOT NULL PRIMARY KEY,
    value VARCHAR NOT NULL
);
CREATE TABLE meta (
    key VARCHAR NOT NULL PRIMARY KEY,
    value VARCHAR NOT NULL
);
CREATE TABLE documents (
    doc INTEGER NOT NULL PRIMARY KEY,
    path VARCHAR NOT NULL,  -- one row per path (see above)
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
    mtime_ns BIGINT,
    ctime_ns BIGINT
);
CREATE INDEX documents_path ON documents (path);
CREATE TABLE documents_pending (
    doc INTEGER NOT NULL PRIMARY KEY,
    path VARCHAR NOT NULL,  -- one row per path (see above)
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
    replaces INTEGER,
    mtime_ns BIGINT,
    ctime_ns BIGINT
);
CREATE TABLE document_texts (
    doc INTEGER NOT NULL PRIMARY KEY,
    text VARCHAR NOT NULL
);
CREATE TABLE fingerprints (
    hash BIGINT NOT NULL,
    doc INTEGER NOT NULL,
    pos INTEGER NOT NULL
);
CREATE TABLE shared_hashes (
    hash BIGINT NOT NULL,
    df INTEGER NOT NULL
);
CREATE TABLE common_hashes (
    hash BIGINT NOT NULL,
    df INTEGER NOT NULL
);
CREATE TABLE boilerplate_hashes (
    hash BIGINT NOT NULL
);
CREATE TABLE code_text_df (
    hash BIGINT NOT NULL,
    df INTEGER NOT NULL
);
CREATE TABLE documents_removed (
    doc INTEGER NOT NULL,
    fingerprints BIGINT NOT NULL
);
CREATE TABLE code_text_hashes (
    hash BIGINT NOT NULL,
    doc INTEGER NOT NULL
);
