-- The GitHub bot: webhook deliveries (dedupe), the outbox of GitHub actions (durable, retried), what the bot applied
-- and what humans removed, the one bot comment per issue, labeled issues for the dashboard, tracking issues.
CREATE TABLE webhook_deliveries (
  delivery_id TEXT PRIMARY KEY,               -- X-GitHub-Delivery, unchanged on redelivery
  event       TEXT NOT NULL,
  action      TEXT NOT NULL DEFAULT '',
  received_at TEXT NOT NULL
);

CREATE TABLE outbox (
  id              INTEGER PRIMARY KEY,
  repo            TEXT    NOT NULL,             -- owner/name
  issue_number    INTEGER NOT NULL DEFAULT 0,   -- 0 for actions not about one issue (create_label, new tracking issue)
  kind            TEXT    NOT NULL
                  CHECK (kind IN ('add_labels', 'create_label', 'upsert_comment', 'upsert_tracking_issue')),
  payload         TEXT    NOT NULL DEFAULT '{}', -- JSON
  state           TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed', 'dry_run')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,   -- unix milliseconds
  last_error      TEXT    NOT NULL DEFAULT '',
  created_at      TEXT    NOT NULL,
  sent_at         TEXT
);
CREATE INDEX outbox_due ON outbox(state, next_attempt_at, id);

CREATE TABLE issue_labels (
  repo             TEXT    NOT NULL,
  number           INTEGER NOT NULL,
  label            TEXT    NOT NULL,
  applied_by_bot   INTEGER NOT NULL DEFAULT 0,
  removed_by_human INTEGER NOT NULL DEFAULT 0,  -- the bot never applies it again
  PRIMARY KEY (repo, number, label)
);

CREATE TABLE bot_comments (
  repo       TEXT    NOT NULL,
  number     INTEGER NOT NULL,
  comment_id INTEGER NOT NULL,
  PRIMARY KEY (repo, number)
);

CREATE TABLE labeled_issues (
  repo       TEXT    NOT NULL,
  number     INTEGER NOT NULL,
  title      TEXT    NOT NULL DEFAULT '',
  axes       TEXT    NOT NULL DEFAULT '[]',     -- JSON [{"axis","value","reason"}]
  labels     TEXT    NOT NULL DEFAULT '[]',     -- JSON: the labels the bot would apply
  result     TEXT    NOT NULL DEFAULT '{}',     -- JSON: the labeler's whole answer
  updated_at TEXT    NOT NULL,
  PRIMARY KEY (repo, number)
);

CREATE TABLE tracking_issues (
  fingerprint TEXT PRIMARY KEY,                -- platform + release + kind
  repo        TEXT    NOT NULL,
  number      INTEGER NOT NULL
);
