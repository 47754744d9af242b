-- side_document_at_path.sql: the ordinary document at one path (a side of a query or comparison
-- named by its file), found through the index of documents.path (documents_path, schema 8: DuckDB
-- reads only its row, 0.5 ms at 1,000,000 documents where a scan of the paths took 17 ms; a
-- join with a list of names would scan every path).
-- DuckDB only: the read path of a DuckDB index (query, compare, report).
-- Parameters: $name (VARCHAR: a resolved path). Columns: doc, path, submission, chars, normalizer.
SELECT doc, path, submission, chars, normalizer
FROM documents
WHERE path = $name AND kind = 'document'
