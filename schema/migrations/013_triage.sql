-- Triage state per case and the queue of the tracking issues the service keeps (schema/README.md "Triage").
--
-- A case's state is derived from the backlog (migration 012) unless a person (or an automatic transition of a
-- person's state) wrote a row here: a case slow on the platform is `new` since its first slow run, `fixed` by the
-- backlog's fixed run, `regressed` when a later slow measurement ended a fix. A row holds what only a decision can:
-- `acknowledged` (with an issue reference), `expected` (a known limitation, with the reason), `wontfix`; when the
-- backlog says such a case is fixed (or, for `fixed`, slow again), ingest moves an `acknowledged` / `regressed` row to
-- `fixed` and a `fixed` one to `regressed` (who: "auto"). `expected` and `wontfix` stay until a person moves them.
-- So a nightly of a million rows writes nothing here unless a decided case changed.
CREATE TABLE triage (
  platform   TEXT    NOT NULL,  -- the runs' spelling
  case_id    INTEGER NOT NULL,  -- cases.id, a case of kind performance
  state      TEXT    NOT NULL CHECK (state IN ('acknowledged', 'expected', 'wontfix', 'fixed', 'regressed')),
  issue      TEXT    NOT NULL DEFAULT '',  -- owner/repo#N
  reason     TEXT    NOT NULL DEFAULT '',
  since_run  INTEGER,                      -- the run an automatic state came with
  updated_at TEXT    NOT NULL,
  updated_by TEXT    NOT NULL,             -- a token's name, or "auto"
  PRIMARY KEY (platform, case_id)
) WITHOUT ROWID;

-- Every change, derived states included when a person or a transition replaced them.
CREATE TABLE triage_history (
  id         INTEGER PRIMARY KEY,
  platform   TEXT    NOT NULL,
  case_id    INTEGER NOT NULL,
  from_state TEXT    NOT NULL,
  state      TEXT    NOT NULL,
  issue      TEXT    NOT NULL DEFAULT '',
  reason     TEXT    NOT NULL DEFAULT '',
  run_id     INTEGER,
  who        TEXT    NOT NULL,
  at         TEXT    NOT NULL
);
CREATE INDEX triage_history_case ON triage_history(platform, case_id, id);

-- A triage change changes the platform's backlog and reports: stamp it as a run change does (migration 011).
CREATE TRIGGER triage_stamp_insert AFTER INSERT ON triage BEGIN
  UPDATE data_stamps SET stamp = stamp + 1 WHERE scope = '*';
  INSERT INTO data_stamps(scope, stamp)
    VALUES ('platform:' || lower(NEW.platform), (SELECT stamp FROM data_stamps WHERE scope = '*'))
    ON CONFLICT(scope) DO UPDATE SET stamp = excluded.stamp;
END;
CREATE TRIGGER triage_stamp_update AFTER UPDATE ON triage BEGIN
  UPDATE data_stamps SET stamp = stamp + 1 WHERE scope = '*';
  INSERT INTO data_stamps(scope, stamp)
    VALUES ('platform:' || lower(NEW.platform), (SELECT stamp FROM data_stamps WHERE scope = '*'))
    ON CONFLICT(scope) DO UPDATE SET stamp = excluded.stamp;
END;
CREATE TRIGGER triage_stamp_delete AFTER DELETE ON triage BEGIN
  UPDATE data_stamps SET stamp = stamp + 1 WHERE scope = '*';
  INSERT INTO data_stamps(scope, stamp)
    VALUES ('platform:' || lower(OLD.platform), (SELECT stamp FROM data_stamps WHERE scope = '*'))
    ON CONFLICT(scope) DO UPDATE SET stamp = excluded.stamp;
END;

-- What the tracking task (server/app/tracking.cpp) has to look at again: 'run:<id>' when the run's results changed
-- (stored, superseded, an artifact attached: its revision moved), 'platform:<spelling>' when a case's triage
-- changed or a run of it was deleted. Triggers fill it, so a write by any process (`perftriage ingest --db`) counts.
-- An entry is due once quiet: changed_ms older than the policy's settle_seconds; handled_ms records the change that
-- was acted on, in the transaction that queued the GitHub actions, so a restart neither loses nor repeats one.
CREATE TABLE tracking_queue (
  scope      TEXT    PRIMARY KEY,
  changed_ms INTEGER NOT NULL,
  handled_ms INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX tracking_queue_due ON tracking_queue(changed_ms) WHERE handled_ms < changed_ms;
CREATE TRIGGER runs_track_insert AFTER INSERT ON runs BEGIN
  INSERT INTO tracking_queue(scope, changed_ms)
    VALUES ('run:' || NEW.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    ON CONFLICT(scope) DO UPDATE SET changed_ms = max(excluded.changed_ms, changed_ms + 1);
END;
CREATE TRIGGER runs_track_update AFTER UPDATE ON runs BEGIN
  INSERT INTO tracking_queue(scope, changed_ms)
    VALUES ('run:' || NEW.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    ON CONFLICT(scope) DO UPDATE SET changed_ms = max(excluded.changed_ms, changed_ms + 1);
END;
CREATE TRIGGER runs_track_delete AFTER DELETE ON runs BEGIN
  DELETE FROM tracking_queue WHERE scope = 'run:' || OLD.id;
  INSERT INTO tracking_queue(scope, changed_ms)
    VALUES ('platform:' || OLD.platform, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    ON CONFLICT(scope) DO UPDATE SET changed_ms = max(excluded.changed_ms, changed_ms + 1);
END;
CREATE TRIGGER triage_track_insert AFTER INSERT ON triage BEGIN
  INSERT INTO tracking_queue(scope, changed_ms)
    VALUES ('platform:' || NEW.platform, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    ON CONFLICT(scope) DO UPDATE SET changed_ms = max(excluded.changed_ms, changed_ms + 1);
END;
CREATE TRIGGER triage_track_update AFTER UPDATE ON triage BEGIN
  INSERT INTO tracking_queue(scope, changed_ms)
    VALUES ('platform:' || NEW.platform, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    ON CONFLICT(scope) DO UPDATE SET changed_ms = max(excluded.changed_ms, changed_ms + 1);
END;
CREATE TRIGGER triage_track_delete AFTER DELETE ON triage BEGIN
  INSERT INTO tracking_queue(scope, changed_ms)
    VALUES ('platform:' || OLD.platform, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
    ON CONFLICT(scope) DO UPDATE SET changed_ms = max(excluded.changed_ms, changed_ms + 1);
END;

-- One row per tracking issue the service keeps: (repo, platform, release, kind) is the fingerprint of
-- tracking_issues (migration 003), which holds the GitHub number once created. `published` is what the issue last
-- said (JSON: {"cases": {"<case key>": {"status", "run"}}, "open": bool}), so the next evaluation can name what
-- changed in one comment; body_sha256 skips a re-send of the same body.
CREATE TABLE tracking_state (
  fingerprint TEXT    PRIMARY KEY,
  repo        TEXT    NOT NULL,
  platform    TEXT    NOT NULL,
  release     TEXT    NOT NULL,
  kind        TEXT    NOT NULL,
  run_id      INTEGER,            -- the newest run it was built from
  is_open     INTEGER NOT NULL DEFAULT 1,
  published   TEXT    NOT NULL DEFAULT '{}',
  body_sha256 TEXT    NOT NULL DEFAULT '',
  updated_at  TEXT    NOT NULL
);
CREATE INDEX tracking_state_platform ON tracking_state(platform);

-- Signed notifications of tracking issues ([notify] urls): queued with the GitHub actions, in the same transaction, and
-- sent by the tracking task; sent once acknowledged (2xx), retried with a backoff, `failed` after max attempts.
CREATE TABLE notifications (
  id              INTEGER PRIMARY KEY,
  url             TEXT    NOT NULL,
  event           TEXT    NOT NULL,  -- opened | cases_added | closed | reopened
  body            TEXT    NOT NULL,  -- the JSON sent, exactly as signed
  state           TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_ms INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT    NOT NULL DEFAULT '',
  created_at      TEXT    NOT NULL
);
CREATE INDEX notifications_due ON notifications(next_attempt_ms) WHERE state = 'pending';
