-- The cases a labeled issue names: see ../017_issue_cases.sql.
CREATE TABLE issue_cases (
  repo     TEXT    NOT NULL,
  number   BIGINT  NOT NULL,
  suite    TEXT    NOT NULL,
  dtype    TEXT    NOT NULL,
  mode     TEXT    NOT NULL,
  model    TEXT    NOT NULL,
  platform TEXT    NOT NULL DEFAULT '',
  speedup  DOUBLE PRECISION,
  PRIMARY KEY (repo, number, suite, dtype, mode, model, platform)
);
CREATE INDEX issue_cases_case ON issue_cases (model, suite, dtype, mode);
