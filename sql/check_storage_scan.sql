-- check_storage_scan.sql: read every stored value once (`winnowdb check`), so a damaged block in
-- the file is reported (DuckDB verifies block checksums as it reads). Also gives the totals the
-- check prints. Columns: documents, texts, text_chars, fingerprints, and sums that exist only to
-- make every column be read (document_values, hash_signs, positions).
SELECT
    (SELECT COUNT(*) FROM documents) AS documents,
    (SELECT COUNT(*) FROM document_texts) AS texts,
    (SELECT COALESCE(SUM(CHARACTER_LENGTH(text)), 0) FROM document_texts) AS text_chars,
    (SELECT COUNT(*) FROM fingerprints) AS fingerprints,
    (SELECT COALESCE(SUM(CHARACTER_LENGTH(path) + CHARACTER_LENGTH(submission)
                         + CHARACTER_LENGTH(COALESCE(label, '')) + CHARACTER_LENGTH(kind)
                         + CHARACTER_LENGTH(normalizer) + CHARACTER_LENGTH(content_hash)
                         + CHARACTER_LENGTH(normalized_hash) + CHARACTER_LENGTH(encoding)
                         + CAST(doc AS BIGINT) + bytes % 7 + chars % 7 + units % 7 + fingerprints % 7
                         + simhash % 7 + EXTRACT(SECOND FROM added_at)), 0)
     FROM documents) AS document_values,
    (SELECT COALESCE(SUM(CASE WHEN hash < 0 THEN 1 ELSE 0 END), 0) FROM fingerprints) AS hash_signs,
    (SELECT COALESCE(SUM(CAST(pos AS BIGINT) + doc), 0) FROM fingerprints) AS positions
