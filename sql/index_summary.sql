-- index_summary.sql: the size of an index, for `winnowdb stats`.
-- Read from the documents and the kept statistics (meta.distinct_hashes: of the ordinary
-- documents, plus the hashes only boilerplate holds, looked up), never by counting every row.
-- Columns: documents, boilerplate, submissions, fingerprints, units (normalized units indexed),
-- chars, distinct_hashes, shared_hashes (hashes in two or more submissions), pending (documents a
-- killed add committed whose fingerprints are not stored yet).
SELECT
    (SELECT COUNT(*) FROM documents WHERE kind = 'document') AS documents,
    (SELECT COUNT(*) FROM documents WHERE kind = 'boilerplate') AS boilerplate,
    (SELECT COUNT(DISTINCT sub) FROM documents WHERE kind = 'document') AS submissions,
    (SELECT COALESCE(SUM(fingerprints), 0) FROM documents) AS fingerprints,
    (SELECT COALESCE(SUM(units), 0) FROM documents) AS units,
    (SELECT COALESCE(SUM(chars), 0) FROM documents) AS chars,
    (SELECT COALESCE(MAX(TRY_CAST(value AS BIGINT)), 0) FROM meta WHERE key = 'distinct_hashes')
      + (SELECT COUNT(*) FROM boilerplate_hashes b
         WHERE b.hash NOT IN (SELECT f.hash FROM fingerprints f JOIN documents d ON d.doc = f.doc
                              WHERE d.kind = 'document' AND f.hash IN (SELECT hash FROM boilerplate_hashes)))
      AS distinct_hashes,
    (SELECT COUNT(*) FROM shared_hashes) AS shared_hashes,
    (SELECT COUNT(*) FROM documents_pending) AS pending
