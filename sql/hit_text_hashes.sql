-- hit_text_hashes.sql: the code text family of the hits of query_hits.sql (read by
-- text_evidence.sql as hit_text_hashes), on DuckDB or Spark.
-- Reads the relation query_hit_rows(sub, ...) the caller registers.
-- Columns: sub, hash.
SELECT DISTINCT d.sub, t.hash
FROM code_text_hashes t
JOIN documents d ON d.doc = t.doc
WHERE d.kind = 'document' AND d.sub IN (SELECT sub FROM query_hit_rows)
