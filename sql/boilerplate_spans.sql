-- boilerplate_spans.sql: where boilerplate lies inside the documents of one side of a report, for
-- greying it out. A document's fingerprint is boilerplate when its hash is in boilerplate_hashes
-- (a hash of some document added with --boilerplate). Neighbouring boilerplate fingerprints whose
-- k-grams touch or overlap in the normalized text (pos at most one k-gram length after the
-- previous one) are merged into one span (gaps and islands), so a pasted header is one span, not
-- one per fingerprint.
-- Reads the relation side_rows(hash, doc, pos, start_offset, end_offset) the caller registers: the
-- side's fingerprint rows with their spans in the original text (analysis/sides.py fingerprints
-- the stored texts again; the index stores no spans). Rows without a span (-1) are left out.
-- Parameters: $k (BIGINT: k-gram length of text documents), $code_k (BIGINT: k-gram length of
-- documents with a code normalizer, whose normalizer starts with 'code:').
-- Columns: doc, start_offset, end_offset (character offsets in the original text, end
-- exclusive), fingerprints (how many boilerplate fingerprints the span holds); ordered by doc
-- and start_offset.
WITH hits AS (
    SELECT f.doc, f.pos, f.start_offset, f.end_offset,
           CASE WHEN d.normalizer LIKE 'code:%' THEN $code_k ELSE $k END AS k
    FROM side_rows f
    JOIN documents d ON d.doc = f.doc
    WHERE d.kind = 'document'
      AND f.start_offset >= 0
      AND f.hash IN (SELECT hash FROM boilerplate_hashes)
),
marked AS (
    SELECT doc, pos, start_offset, end_offset,
           CASE
               WHEN LAG(pos) OVER (PARTITION BY doc ORDER BY pos) IS NULL THEN 1
               WHEN pos > LAG(pos) OVER (PARTITION BY doc ORDER BY pos) + k THEN 1
               ELSE 0
           END AS island_start
    FROM hits
),
islands AS (
    SELECT doc, start_offset, end_offset,
           SUM(island_start) OVER (PARTITION BY doc ORDER BY pos
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS island
    FROM marked
)
SELECT doc,
       MIN(start_offset) AS start_offset,
       MAX(end_offset) AS end_offset,
       COUNT(*) AS fingerprints
FROM islands
GROUP BY doc, island
ORDER BY doc, start_offset
