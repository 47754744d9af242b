-- near_duplicate_pairs.sql: which pairs of indexed documents are near-duplicates (simhashes within Hamming distance $hamming).
-- Manku, Jain and Das Sarma (WWW 2007), section 3, batch mode. The relation simhash_masks(block,
-- mask) holds the tables of a block layout (winnowdb.near_duplicates): any two simhashes within
-- the distance agree on every bit of at least one mask, so an equality join on
-- (block, simhash & mask) yields every near pair as a candidate; each candidate is then verified
-- by counting the bits in which the two simhashes differ.
-- Portability: popcount(x XOR y) is written bit_count(x | y) - bit_count(x & y) (the same number),
-- because XOR is xor() in DuckDB but ^ in Spark (where ^ is not XOR in DuckDB); &, | and
-- bit_count mean the same on both engines.
-- Only ordinary documents with a simhash (0 = no letters or digits); pairs inside one submission
-- (same submission_id: the submission's smallest doc id) are not reported; a pair found through
-- several tables is reported once.
-- Parameters: $hamming (INTEGER, 0-32), $limit_rows (INTEGER: at most this many pairs, nearest first).
-- Columns: a, b (document paths, a < b), distance (differing bits), simhash_a, simhash_b.
WITH docs AS (
    SELECT doc, simhash, MIN(doc) OVER (PARTITION BY submission) AS submission_id
    FROM documents
    WHERE kind = 'document' AND simhash <> 0
),
block_keys AS (
    SELECT d.doc, d.simhash, d.submission_id, m.block, d.simhash & m.mask AS block_key
    FROM docs d
    CROSS JOIN simhash_masks m
),
near AS (
    SELECT DISTINCT x.doc AS doc_x, y.doc AS doc_y,
           bit_count(x.simhash | y.simhash) - bit_count(x.simhash & y.simhash) AS distance
    FROM block_keys x
    JOIN block_keys y ON y.block = x.block AND y.block_key = x.block_key AND x.doc < y.doc
    WHERE x.submission_id <> y.submission_id
      AND bit_count(x.simhash | y.simhash) - bit_count(x.simhash & y.simhash) <= $hamming
)
SELECT CASE WHEN dx.path < dy.path THEN dx.path ELSE dy.path END AS a,
       CASE WHEN dx.path < dy.path THEN dy.path ELSE dx.path END AS b,
       n.distance,
       CASE WHEN dx.path < dy.path THEN dx.simhash ELSE dy.simhash END AS simhash_a,
       CASE WHEN dx.path < dy.path THEN dy.simhash ELSE dx.simhash END AS simhash_b
FROM near n
JOIN documents dx ON dx.doc = n.doc_x
JOIN documents dy ON dy.doc = n.doc_y
ORDER BY distance, a, b
LIMIT $limit_rows
