-- check_code_text_df.sql: rows of code_text_df (the text family's document frequencies, which the
-- pair score's weights and caps read) that differ from a count of the rows (the count of
-- code_text_df_counted.sql, written out here): a hash missing, listed twice, listed with another
-- df, or listed though no document holds it. Not while the family's settings are unrecorded: an
-- interrupted `winnowdb upgrade` leaves some of its rows, counted when the upgrade finishes.
-- Columns: hash, kept (NULL: not in code_text_df), counted (NULL: no document holds it).
WITH kept AS (
    SELECT hash, MIN(df) AS df, COUNT(*) AS copies FROM code_text_df GROUP BY hash
),
marked AS (
    SELECT DISTINCT t.hash, d.sub
    FROM code_text_hashes t
    JOIN documents d ON d.doc = t.doc
    WHERE d.kind = 'document'
),
counted AS (
    SELECT m.hash, COUNT(*) AS df
    FROM marked m
    WHERE NOT EXISTS (SELECT 1 FROM code_text_hashes t JOIN documents d ON d.doc = t.doc
                      WHERE d.kind = 'boilerplate' AND t.hash = m.hash)
    GROUP BY m.hash
)
SELECT COALESCE(k.hash, c.hash) AS hash, k.df AS kept, c.df AS counted
FROM kept k
FULL OUTER JOIN counted c ON c.hash = k.hash
WHERE (k.hash IS NULL OR c.hash IS NULL OR k.df <> c.df OR k.copies > 1)
  AND EXISTS (SELECT 1 FROM settings WHERE key = 'code_text_k')  -- an upgrade filling the family
                                                                 -- counts it when it records them
ORDER BY 1
