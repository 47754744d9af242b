-- create_views.sql: views for ad-hoc SQL over an index (recreated whenever winnowdb opens it).
--
--   document_fingerprints  distinct (hash, doc, submission, label) of ordinary documents
--   boilerplate_hashes     every hash that occurs in a document added with --boilerplate
--   fingerprint_df         per hash: df = number of submissions containing it
--   default_max_df         the default cap on df: a quarter of the submissions, clamped to 10..1000
--   pairs                  all-vs-all pair counts with the default cap (built from pairs.sql)
CREATE OR REPLACE VIEW document_fingerprints AS
SELECT DISTINCT f.hash, f.doc, d.submission, d.label
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'document';

CREATE OR REPLACE VIEW boilerplate_hashes AS
SELECT DISTINCT f.hash
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE d.kind = 'boilerplate';

CREATE OR REPLACE VIEW fingerprint_df AS
SELECT hash, COUNT(DISTINCT submission) AS df
FROM document_fingerprints
GROUP BY hash;

CREATE OR REPLACE VIEW default_max_df AS
SELECT LEAST(1000, GREATEST(10, CAST(FLOOR(COUNT(DISTINCT submission) / 4.0) AS BIGINT))) AS max_df
FROM documents
WHERE kind = 'document';
