-- The "slower than eager" backlog (speedup < 1), maintained at ingest so that reading it does not
-- scan every run of a platform. One row per case that was ever slow on the platform; *_ord columns
-- are "<created_at>#<run id>", which orders runs as the rest of the service does.
CREATE TABLE backlog (
  platform       TEXT    NOT NULL,
  suite          TEXT    NOT NULL,
  dtype          TEXT    NOT NULL,
  mode           TEXT    NOT NULL,
  config         TEXT    NOT NULL,
  model          TEXT    NOT NULL,
  first_run      INTEGER NOT NULL,  -- first slow measurement
  first_ord      TEXT    NOT NULL,
  last_run       INTEGER NOT NULL,  -- last slow measurement
  last_ord       TEXT    NOT NULL,
  fixed_run      INTEGER,           -- first passing measurement >= 1 after last_run
  fixed_ord      TEXT,
  latest_run     INTEGER NOT NULL,  -- newest measurement of any kind
  latest_ord     TEXT    NOT NULL,
  latest_speedup REAL,
  latest_text    TEXT    NOT NULL DEFAULT '',
  latest_failed  INTEGER NOT NULL DEFAULT 0,
  worst_speedup  REAL,
  runs_slow      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (platform, suite, dtype, mode, config, model)
) WITHOUT ROWID;

-- Existing databases are replayed into the table once, run by run (schema/backlog_store.cpp).
CREATE TABLE maintenance (task TEXT PRIMARY KEY);
INSERT INTO maintenance(task) SELECT 'rebuild_backlog' WHERE EXISTS (SELECT 1 FROM results);
