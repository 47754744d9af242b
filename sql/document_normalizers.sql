-- document_normalizers.sql: how some documents were read (documents.normalizer: prose, text,
-- words or code:LANG).
-- DuckDB only: the read path of a DuckDB index (compare, report).
-- Reads the relation wanted_docs(doc) the caller registers. Columns: doc, normalizer.
SELECT doc, normalizer FROM documents WHERE doc IN (SELECT doc FROM wanted_docs)
