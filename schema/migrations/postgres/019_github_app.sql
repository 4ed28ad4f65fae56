-- The repositories a GitHub App installation covers: see ../019_app_installations.sql.
CREATE TABLE app_installations (
  repo            TEXT    PRIMARY KEY,
  installation_id BIGINT  NOT NULL,
  removed         BIGINT  NOT NULL DEFAULT 0,
  updated_ms      BIGINT  NOT NULL
);

-- The outbox's new kind: see ../019_github_app.sql.
ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
  CHECK (kind IN ('add_labels', 'create_label', 'upsert_comment', 'upsert_tracking_issue', 'commit_check'));
