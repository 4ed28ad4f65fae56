-- Store v2: integer keys, blobs beside the rows, per-run summaries (schema/README.md "Store v2").
--
-- cases: the dimension of what is measured. Every result row used to repeat suite, model, dtype, mode, kind and config
-- as text, and both results indexes repeated them again (262 bytes a row). A case is a model in a group (suite, dtype,
-- mode, kind, config): the groups are few (one per result file layout), so a new model costs an integer and its name,
-- and a file's cases are one range of case_models_group. `cases` (a view) spells a case out for the queries.
CREATE TABLE case_groups (
  id     INTEGER PRIMARY KEY,
  suite  TEXT NOT NULL,
  dtype  TEXT NOT NULL,
  mode   TEXT NOT NULL,
  kind   TEXT NOT NULL,                  -- performance | accuracy
  config TEXT NOT NULL DEFAULT '',
  UNIQUE (suite, dtype, mode, kind, config)
);
CREATE TABLE case_models (
  id       INTEGER PRIMARY KEY,
  group_id INTEGER NOT NULL REFERENCES case_groups(id),
  model    TEXT    NOT NULL,
  UNIQUE (group_id, model)
);
INSERT INTO case_groups(suite, dtype, mode, kind, config)
  SELECT DISTINCT suite, dtype, mode, kind, config FROM results ORDER BY suite, dtype, mode, kind, config;
INSERT INTO case_models(group_id, model)
  SELECT DISTINCT g.id, x.model FROM results x JOIN case_groups g ON g.suite = x.suite AND g.dtype = x.dtype
     AND g.mode = x.mode AND g.kind = x.kind AND g.config = x.config
   ORDER BY g.id, x.model;
CREATE VIEW cases AS
  SELECT m.id, g.suite, m.model, g.dtype, g.mode, g.kind, g.config, m.group_id
    FROM case_models m JOIN case_groups g ON g.id = m.group_id;

-- result_rows: one measured row, clustered by (run, case). A run's rows are one contiguous range (every read of a run:
-- compare, summaries, flags), a new run appends at the end of the tree, and a case's history on a platform is one
-- primary-key probe per run of that platform (runs_platform_created gives the runs): no second index, so ingest time
-- does not grow with history. file_id and line complete the key: two files of one run may hold the same case.
-- No foreign key on file_id / case_id: SQLite checks one by scanning the child table when the parent row goes (there is
-- no index on those columns); deleting a run deletes its rows by run_id first (schema/run_delete.cpp).
-- eager_latency_ms is not stored: the view computes it from speedup and abs_latency_ms (ingest::ResultRow rule).
CREATE TABLE result_rows (
  run_id              INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  case_id             INTEGER NOT NULL,
  file_id             INTEGER NOT NULL,
  line                INTEGER NOT NULL,
  dev                 TEXT    NOT NULL DEFAULT '',
  batch_size          INTEGER NOT NULL DEFAULT 0,
  speedup             REAL,
  speedup_text        TEXT    NOT NULL DEFAULT '',
  abs_latency_ms      REAL,
  compilation_latency_s REAL,
  compression_ratio   REAL,
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
  failed              INTEGER NOT NULL DEFAULT 0,
  accuracy_failed     INTEGER NOT NULL DEFAULT 0,
  unreliable          INTEGER NOT NULL DEFAULT 0,
  expected_accuracy   TEXT,
  deviates            INTEGER NOT NULL DEFAULT 0,
  extra               TEXT,
  invalid             INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, case_id, file_id, line)
) WITHOUT ROWID;
INSERT INTO result_rows
  SELECT x.run_id, c.id, x.file_id, x.line, x.dev, x.batch_size, x.speedup, x.speedup_text, x.abs_latency_ms,
         x.compilation_latency_s, x.compression_ratio, x.eager_peak_mem_gb, x.dynamo_peak_mem_gb, x.calls_captured,
         x.unique_graphs, x.graph_breaks, x.unique_graph_breaks, x.autograd_captures, x.autograd_compiles,
         x.cudagraph_skips, x.fallbacks_to_eager, x.accuracy, x.short_row, x.failed, x.accuracy_failed, x.unreliable,
         x.expected_accuracy, x.deviates, x.extra, x.invalid
    FROM results x JOIN cases c ON c.suite = x.suite AND c.model = x.model AND c.dtype = x.dtype AND c.mode = x.mode
     AND c.kind = x.kind AND c.config = x.config
   ORDER BY x.run_id, c.id, x.file_id, x.line;
DROP TABLE results;

-- Reads keep their shape: `results` is the rows with their case spelled out (SQLite flattens the join into each query).
-- Writes go to result_rows.
CREATE VIEW results AS
  SELECT x.run_id, x.case_id, x.file_id, c.suite, c.dtype, c.mode, c.kind, c.config, c.model, x.line, x.dev,
         x.batch_size, x.speedup, x.speedup_text, x.abs_latency_ms,
         CASE WHEN x.speedup > 0 AND x.abs_latency_ms > 0 THEN x.speedup * x.abs_latency_ms END AS eager_latency_ms,
         x.compilation_latency_s, x.compression_ratio, x.eager_peak_mem_gb, x.dynamo_peak_mem_gb, x.calls_captured,
         x.unique_graphs, x.graph_breaks, x.unique_graph_breaks, x.autograd_captures, x.autograd_compiles,
         x.cudagraph_skips, x.fallbacks_to_eager, x.accuracy, x.short_row, x.failed, x.accuracy_failed, x.unreliable,
         x.expected_accuracy, x.deviates, x.extra, x.invalid
    FROM result_rows x JOIN cases c ON c.id = x.case_id;

-- Raw bytes beside the rows they came from: result_files and artifacts are scanned (a run's files, the artifact list),
-- and a blob mid-row made every such scan walk overflow pages. raw_kept (indexed while set) replaces the partial index
-- on length(raw_deflate) for the retention task.
CREATE TABLE file_blobs (
  file_id     INTEGER PRIMARY KEY REFERENCES result_files(id) ON DELETE CASCADE,
  raw_deflate BLOB NOT NULL  -- zlib-compressed original bytes
);
INSERT INTO file_blobs SELECT id, raw_deflate FROM result_files WHERE length(raw_deflate) > 0;
ALTER TABLE result_files ADD COLUMN raw_kept INTEGER NOT NULL DEFAULT 1;
UPDATE result_files SET raw_kept = 0 WHERE length(raw_deflate) = 0;
DROP INDEX result_files_raw_kept;
ALTER TABLE result_files DROP COLUMN raw_deflate;
CREATE INDEX result_files_raw_kept ON result_files(uploaded_at) WHERE raw_kept = 1;

CREATE TABLE artifact_blobs (
  artifact_id INTEGER PRIMARY KEY REFERENCES artifacts(id) ON DELETE CASCADE,
  raw         BLOB NOT NULL
);
INSERT INTO artifact_blobs SELECT id, raw FROM artifacts;
ALTER TABLE artifacts ADD COLUMN stored_size INTEGER NOT NULL DEFAULT 0;  -- bytes in artifact_blobs
UPDATE artifacts SET stored_size = length(raw);
ALTER TABLE artifacts DROP COLUMN raw;

-- GET /runs across platforms pages newest first (store.cpp list_runs_page); with a platform, runs_platform_created.
CREATE INDEX runs_created ON runs(created_at);

-- Per-run, per-group summaries, written in the ingest transaction (schema/store.cpp refresh_run_flags), read by
-- GET /runs and the dashboard instead of counting a run's rows on every request. `slow*` count at speedup < 1, the
-- default [analysis] slow_threshold; another threshold is counted from the rows.
CREATE TABLE run_groups (
  run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind            TEXT    NOT NULL,
  suite           TEXT    NOT NULL,
  dtype           TEXT    NOT NULL,
  mode            TEXT    NOT NULL,
  rows            INTEGER NOT NULL,
  measured        INTEGER NOT NULL,  -- performance, not failed, speedup > 0
  slow_measured   INTEGER NOT NULL,  -- measured and speedup < 1
  slow            INTEGER NOT NULL,  -- performance and 0 < speedup < 1 (failed ones too: the run counts)
  failed          INTEGER NOT NULL,
  accuracy_failed INTEGER NOT NULL,
  unreliable      INTEGER NOT NULL,
  deviates        INTEGER NOT NULL,
  invalid         INTEGER NOT NULL,
  log_sum         REAL    NOT NULL,  -- sum of ln(speedup) over measured rows
  log_sum_clipped REAL    NOT NULL,  -- sum of ln(max(speedup, 1)) over measured rows
  PRIMARY KEY (run_id, kind, suite, dtype, mode)
) WITHOUT ROWID;
INSERT INTO run_groups
  SELECT run_id, kind, suite, dtype, mode, count(*),
         coalesce(sum(kind = 'performance' AND failed = 0 AND speedup > 0), 0),
         coalesce(sum(kind = 'performance' AND failed = 0 AND speedup > 0 AND speedup < 1), 0),
         coalesce(sum(kind = 'performance' AND speedup > 0 AND speedup < 1), 0),
         sum(failed), sum(accuracy_failed), sum(unreliable), sum(deviates), sum(invalid),
         total(CASE WHEN kind = 'performance' AND failed = 0 AND speedup > 0 THEN ln(speedup) END),
         total(CASE WHEN kind = 'performance' AND failed = 0 AND speedup > 1 THEN ln(speedup) END)
    FROM results GROUP BY run_id, kind, suite, dtype, mode;
