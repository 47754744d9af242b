-- gone_hash_submissions.sql: the distinct hashes of documents about to be removed, each with how
-- many of their submissions hold it (store/removal.py: the document frequencies of those hashes
-- are brought up to date after the removal, by taking those submissions away where the removal
-- takes whole submissions of ordinary documents, else by counting them again). Ordered by hash.
-- DuckDB only: the DuckDB index's bookkeeping of a removal.
-- Reads the relation gone_docs(doc) the caller registers. Columns: hash, subs.
SELECT f.hash, COUNT(DISTINCT d.sub) AS subs
FROM fingerprints f
JOIN documents d ON d.doc = f.doc
WHERE f.doc IN (SELECT doc FROM gone_docs)
GROUP BY f.hash
ORDER BY f.hash
