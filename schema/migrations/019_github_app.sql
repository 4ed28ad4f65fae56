-- The repositories a GitHub App installation covers, as its `installation` and `installation_repositories` webhooks
-- say: a repository the App has lost (uninstalled, suspended, or taken out of the installation's selection) is no
-- longer acted on, its deliveries are answered and ignored, and outbox actions for it fail with that reason.
-- Only written in App mode ([github] app_id); a repository never named here is acted on (the App may have been
-- installed before the service ran, and GitHub answers for it then).
CREATE TABLE app_installations (
  repo            TEXT    PRIMARY KEY,                    -- owner/name as GitHub spells it
  installation_id INTEGER NOT NULL,
  removed         INTEGER NOT NULL DEFAULT 0,             -- 1: the App has lost this repository
  updated_ms      INTEGER NOT NULL
);

-- The outbox learns one more kind of action: a CI upload's verdict on its commit (a check run, or a commit status).
-- SQLite cannot change a CHECK constraint in place, so the table is rebuilt with every row and id kept.
CREATE TABLE outbox_v19 (
  id              INTEGER PRIMARY KEY,
  repo            TEXT    NOT NULL,
  issue_number    INTEGER NOT NULL DEFAULT 0,
  kind            TEXT    NOT NULL
                  CHECK (kind IN ('add_labels', 'create_label', 'upsert_comment', 'upsert_tracking_issue',
                                  'commit_check')),
  payload         TEXT    NOT NULL DEFAULT '{}',
  state           TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed', 'dry_run')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT    NOT NULL DEFAULT '',
  created_at      TEXT    NOT NULL,
  sent_at         TEXT
);
INSERT INTO outbox_v19 SELECT id, repo, issue_number, kind, payload, state, attempts, next_attempt_at, last_error,
  created_at, sent_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v19 RENAME TO outbox;
CREATE INDEX outbox_due ON outbox(state, next_attempt_at, id);
