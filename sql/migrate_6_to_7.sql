-- migrate_6_to_7.sql: schema 6 -> 7, fingerprints without their spans in the original text (issue 19).
-- DuckDB only: writes the DuckDB index.
-- A fingerprint row is (hash, doc, pos). Its span (start_offset, end_offset) was stored only for
-- showing passages, and compare, query and report have fingerprinted the stored texts again for
-- that since schema 4 (analysis/sides.py): the two columns were a third of the bytes every add
-- wrote (bench/RESULTS.md). DuckDB drops a column without rewriting the others' rows; the next
-- checkpoint writes the table once (100,000 documents: ~2 s) and frees the columns' blocks.
ALTER TABLE fingerprints DROP COLUMN IF EXISTS start_offset;
ALTER TABLE fingerprints DROP COLUMN IF EXISTS end_offset;
