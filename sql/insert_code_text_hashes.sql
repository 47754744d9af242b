-- insert_code_text_hashes.sql: store code documents' text family (their distinct short prose
-- k-gram hashes, issue 21), committed with the documents' texts.
-- DuckDB only: writes the DuckDB index.
-- Reads the relation new_code_text(hash, doc) the caller registers.
INSERT INTO code_text_hashes SELECT hash, doc FROM new_code_text
