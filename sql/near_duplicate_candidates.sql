-- near_duplicate_candidates.sql: how many candidate pairs near_duplicate_pairs.sql would verify:
-- for each table of the block layout (the relation simhash_masks(block, mask)), the pairs of
-- documents whose simhashes agree on the table's bits, counted from the sizes of those groups
-- (pairs inside one submission included: an upper bound), without forming any pair.
-- DuckDB only: the guard of the DuckDB pair search (analysis/near_duplicates.py): documents
-- whose simhashes nearly coincide (100,000 generated from one vocabulary have 3,172 distinct
-- ones) made billions of candidates, and the search spilled until the disk was full.
-- Columns: candidates.
SELECT COALESCE(SUM(CAST(members AS HUGEINT) * (members - 1) // 2), 0) AS candidates
FROM (
    SELECT m.block, d.simhash & m.mask AS block_key, COUNT(*) AS members
    FROM documents d
    CROSS JOIN simhash_masks m
    WHERE d.kind = 'document' AND d.simhash <> 0
    GROUP BY m.block, d.simhash & m.mask
) AS groups
