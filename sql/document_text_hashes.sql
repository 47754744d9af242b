-- document_text_hashes.sql: the code text family of some indexed documents (the sides of a
-- query or a comparison: the pair score's evidence, text_evidence.sql).
-- Reads the relation query_docs(doc) the caller registers. Columns: doc, hash.
SELECT t.doc, t.hash FROM code_text_hashes t JOIN query_docs q ON q.doc = t.doc
