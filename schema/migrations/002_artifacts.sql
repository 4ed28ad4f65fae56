-- Files attached to a stored case (kernel traces, compile logs) and what the classifiers found in them.
CREATE TABLE artifacts (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  suite       TEXT    NOT NULL,
  dtype       TEXT    NOT NULL,
  mode        TEXT    NOT NULL,
  model       TEXT    NOT NULL,
  config      TEXT    NOT NULL DEFAULT '',
  name        TEXT    NOT NULL,               -- file name as uploaded
  role        TEXT    NOT NULL DEFAULT '',    -- free label: eager, compiled, before, after, ...
  kind        TEXT    NOT NULL,               -- what the classifier recognised (kineto, torch_logs, ...)
  sha256      TEXT    NOT NULL,               -- of the bytes as uploaded
  size        INTEGER NOT NULL,               -- bytes as uploaded
  compression TEXT    NOT NULL CHECK (compression IN ('deflate', 'gzip')),  -- gzip: uploaded bytes kept as they are
  raw         BLOB    NOT NULL,
  findings    TEXT    NOT NULL,               -- JSON: the classify result (census, findings, summary)
  created_at  TEXT    NOT NULL
);
-- One copy of the same bytes per case; its prefix also serves the lookups by case and by run.
CREATE UNIQUE INDEX artifacts_case ON artifacts(run_id, suite, dtype, mode, model, sha256);
