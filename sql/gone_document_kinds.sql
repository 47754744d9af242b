-- gone_document_kinds.sql: the kinds of documents about to be removed (removing boilerplate
-- changes the boilerplate hashes).
-- DuckDB only: the DuckDB index's bookkeeping of a removal.
-- Reads the relation gone_docs(doc) the caller registers. Columns: doc, kind.
SELECT doc, kind FROM documents WHERE doc IN (SELECT doc FROM gone_docs)
