-- Runs, their uploaded files (raw bytes kept, compressed) and the parsed rows.
CREATE TABLE runs (
  id            INTEGER PRIMARY KEY,
  key           TEXT    NOT NULL UNIQUE,
  platform      TEXT    NOT NULL,
  device        TEXT    NOT NULL DEFAULT '',
  torch_version TEXT    NOT NULL DEFAULT '',
  commit_sha    TEXT    NOT NULL DEFAULT '',
  created_at    TEXT    NOT NULL,            -- ISO-8601 UTC, orders runs of a platform
  tags          TEXT    NOT NULL DEFAULT '[]', -- JSON array of strings
  environment   TEXT    NOT NULL DEFAULT '{}'  -- JSON object (driver versions, ...)
);
CREATE INDEX runs_platform_created ON runs(platform, created_at);

CREATE TABLE result_files (
  id                 INTEGER PRIMARY KEY,
  run_id             INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  path               TEXT    NOT NULL,         -- as uploaded
  format             TEXT    NOT NULL,         -- performance | accuracy | reference:<format>
  suite              TEXT    NOT NULL DEFAULT '',
  dtype              TEXT    NOT NULL DEFAULT '',
  mode               TEXT    NOT NULL DEFAULT '',
  kind               TEXT    NOT NULL DEFAULT '',
  device             TEXT    NOT NULL DEFAULT '',
  config             TEXT    NOT NULL DEFAULT '',
  sha256             TEXT    NOT NULL,
  size               INTEGER NOT NULL,         -- uncompressed bytes
  raw_deflate        BLOB    NOT NULL,         -- zlib-compressed original bytes
  header             TEXT    NOT NULL DEFAULT '',
  row_count          INTEGER NOT NULL DEFAULT 0,
  duplicates_dropped INTEGER NOT NULL DEFAULT 0,
  uploaded_at        TEXT    NOT NULL,
  superseded_by      INTEGER REFERENCES result_files(id)
);
-- One live file per (run, path); superseded ones are kept for audit.
CREATE UNIQUE INDEX result_files_live_path ON result_files(run_id, path) WHERE superseded_by IS NULL;

CREATE TABLE results (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  file_id             INTEGER NOT NULL REFERENCES result_files(id) ON DELETE CASCADE,
  suite               TEXT    NOT NULL,
  dtype               TEXT    NOT NULL,
  mode                TEXT    NOT NULL,
  kind                TEXT    NOT NULL,       -- performance | accuracy
  config              TEXT    NOT NULL DEFAULT '',
  model               TEXT    NOT NULL,
  line                INTEGER NOT NULL,
  dev                 TEXT    NOT NULL DEFAULT '',
  batch_size          INTEGER NOT NULL DEFAULT 0,
  speedup             REAL,
  speedup_text        TEXT    NOT NULL DEFAULT '',
  abs_latency_ms      REAL,
  eager_latency_ms    REAL,                  -- derived: speedup x abs_latency
  compilation_latency_s REAL,
  compression_ratio   REAL,                  -- NULL = not measured (XPU)
  eager_peak_mem_gb   REAL,
  dynamo_peak_mem_gb  REAL,
  calls_captured      INTEGER,
  unique_graphs       INTEGER,
  graph_breaks        INTEGER,
  unique_graph_breaks INTEGER,
  autograd_captures   INTEGER,
  autograd_compiles   INTEGER,
  cudagraph_skips     INTEGER,
  fallbacks_to_eager  INTEGER,
  accuracy            TEXT    NOT NULL DEFAULT '',
  short_row           INTEGER NOT NULL DEFAULT 0,
  failed              INTEGER NOT NULL DEFAULT 0, -- speedup 0, batch size 0 or short row
  accuracy_failed     INTEGER NOT NULL DEFAULT 0, -- accuracy status not passing (unknown ones too)
  unreliable          INTEGER NOT NULL DEFAULT 0, -- speedup whose model fails accuracy in the same run
  expected_accuracy   TEXT,                       -- from the run's reference files, when one covers this row
  deviates            INTEGER NOT NULL DEFAULT 0, -- pass/fail differs from the reference
  extra               TEXT                        -- JSON object of unknown columns, NULL when none
);
CREATE INDEX results_run_axes ON results(run_id, kind, suite, dtype, mode);
CREATE INDEX results_case ON results(suite, model, dtype, mode, kind);
-- No index on results(file_id): rows of a file are found through run_id (results_run_axes), and
-- result_files rows are never deleted (superseded files are kept), so the cascade never scans.

CREATE TABLE expectations (
  id             INTEGER PRIMARY KEY,
  run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  file_id        INTEGER NOT NULL REFERENCES result_files(id) ON DELETE CASCADE,
  suite          TEXT    NOT NULL,
  mode           TEXT    NOT NULL,
  dtype          TEXT    NOT NULL DEFAULT '',  -- '' = every dtype
  config         TEXT    NOT NULL DEFAULT '',
  model          TEXT    NOT NULL,
  line           INTEGER NOT NULL,
  accuracy       TEXT    NOT NULL DEFAULT '',
  graph_breaks   INTEGER,
  speedup_target REAL
);
CREATE INDEX expectations_run ON expectations(run_id, suite, mode, model);
