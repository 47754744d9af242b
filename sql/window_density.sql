-- window_density.sql: measured fingerprint density (fingerprints per k-gram) per normalizer,
-- over the ordinary documents long enough to hold a k-gram, to compare with the Winnowing
-- paper's expected 2/(w+1). Text documents use $k; code documents (normalizer 'code:...')
-- use $code_k.
-- Parameters: $k (BIGINT), $code_k (BIGINT).
-- Columns: family ('text', 'words' or 'code'), documents, density.
WITH sized AS (
    SELECT CASE WHEN normalizer LIKE 'code:%' THEN 'code' ELSE normalizer END AS family,
           fingerprints,
           units - CASE WHEN normalizer LIKE 'code:%' THEN $code_k ELSE $k END + 1 AS kgrams
    FROM documents
    WHERE kind = 'document'
)
SELECT family, COUNT(*) AS documents,
       CAST(SUM(fingerprints) AS DOUBLE) / SUM(kgrams) AS density
FROM sized
WHERE kgrams > 0
GROUP BY family
ORDER BY family
