-- query_document_text_hashes.sql: the code text family of indexed query documents (the pair
-- score of their hits: query_hit_sizes.sql), on DuckDB or Spark.
-- Reads the relation query_docs(doc) the caller registers. Columns: hash.
SELECT DISTINCT t.hash FROM code_text_hashes t JOIN query_docs q ON q.doc = t.doc
