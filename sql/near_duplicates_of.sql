-- near_duplicates_of.sql: which indexed documents are near-duplicates of one document (simhash within Hamming distance $hamming of $simhash).
-- Manku, Jain and Das Sarma (WWW 2007), section 3.1, online mode. The relation
-- simhash_masks(block, mask) holds the tables of a block layout (winnowdb.near_duplicates): a
-- simhash within the distance of $simhash agrees with it on every bit of at least one mask, so
-- the documents equal to $simhash on some (simhash & mask) are the candidates; each is then
-- verified by counting differing bits, written bit_count(x | y) - bit_count(x & y) (= popcount
-- of x XOR y; XOR itself is spelled differently in DuckDB and Spark).
-- Only ordinary documents with a simhash (0 = no letters or digits); the query's own submission
-- ($exclude, when it is indexed) is left out.
-- Parameters: $simhash (BIGINT: the query's simhash), $hamming (INTEGER, 0-32),
-- $exclude (VARCHAR or NULL: a submission not to report), $limit_rows (INTEGER: at most this many hits).
-- Columns: path, distance (differing bits), simhash.
WITH probe AS (
    SELECT m.block, m.mask, CAST($simhash AS BIGINT) & m.mask AS block_key
    FROM simhash_masks m
),
candidates AS (
    SELECT DISTINCT d.doc
    FROM documents d
    JOIN probe p ON (d.simhash & p.mask) = p.block_key
    WHERE d.kind = 'document' AND d.simhash <> 0
)
SELECT d.path,
       bit_count(d.simhash | CAST($simhash AS BIGINT)) - bit_count(d.simhash & CAST($simhash AS BIGINT)) AS distance,
       d.simhash
FROM candidates c
JOIN documents d ON d.doc = c.doc
WHERE bit_count(d.simhash | CAST($simhash AS BIGINT)) - bit_count(d.simhash & CAST($simhash AS BIGINT)) <= $hamming
  AND ($exclude IS NULL OR d.submission <> $exclude)
ORDER BY distance, d.path
LIMIT $limit_rows
