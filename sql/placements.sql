-- placements.sql: the label and submission of those of some paths that are indexed (add keeps
-- them when --label / --submission-depth are not given again).
-- DuckDB only: add's bookkeeping on the DuckDB index.
-- Reads the relation wanted_paths(path) the caller registers. Columns: path, label, submission.
SELECT d.path, d.label, d.submission
FROM documents d
JOIN wanted_paths w ON w.path = d.path
