-- The backlog keyed by case id: a row is (platform, case of kind performance), as before, but the case is
-- the integer of migration 010's `cases` instead of its five text columns. Ingest folds a run into the backlog with
-- two passes over the run's rows of result_rows; with text keys each pass joined every row to its case to spell it
-- out and compared six strings a probe (1.1 s of a 1M-row file's ingest), now it reads result_rows alone and probes
-- by two integers (schema/backlog_store.cpp). Readers spell the case out through `cases`, once a backlog row.
-- regressed_run is new: the triage state of a case (migration 013) says `regressed` for a case slow again after a fix;
-- a database carried forward starts without any (the fixes its backlog already lost are not known).
CREATE TABLE backlog_v12 (
  platform       TEXT    NOT NULL,
  case_id        INTEGER NOT NULL,  -- cases.id, a case of kind performance
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
  regressed_run  INTEGER,           -- the slow measurement that ended a fix (triage state `regressed`), if any
  PRIMARY KEY (platform, case_id)
) WITHOUT ROWID;
-- Every backlog row names a case that has rows (it was built from them), so the join keeps them all.
INSERT INTO backlog_v12
  SELECT b.platform, c.id, b.first_run, b.first_ord, b.last_run, b.last_ord, b.fixed_run, b.fixed_ord, b.latest_run,
         b.latest_ord, b.latest_speedup, b.latest_text, b.latest_failed, b.worst_speedup, b.runs_slow,
         NULL
    FROM backlog b JOIN cases c ON c.kind = 'performance' AND c.suite = b.suite AND c.dtype = b.dtype
     AND c.mode = b.mode AND c.config = b.config AND c.model = b.model
   ORDER BY b.platform, c.id;
DROP TABLE backlog;
ALTER TABLE backlog_v12 RENAME TO backlog;
