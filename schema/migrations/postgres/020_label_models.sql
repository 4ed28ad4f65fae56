-- The labeler's model as `serve` last retrained it for a repository: see ../020_label_models.sql.
CREATE TABLE label_models (
  repo        TEXT    COLLATE nocase PRIMARY KEY,
  taxonomy    TEXT    NOT NULL,
  model       TEXT    NOT NULL,
  issues      BIGINT  NOT NULL,
  corrections BIGINT  NOT NULL,
  trained_at  TEXT    NOT NULL
);
