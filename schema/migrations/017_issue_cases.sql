-- The cases a labeled issue names (the labeler's extracted cases), so that a case finds the issues that track it.
-- Written with the labeled issue (save_labeled_issue) and replaced when it is relabeled.
--
-- A case here is platform-agnostic (suite, dtype, mode, model), as issues name it; `platform` narrows the link to
-- the hardware the issue's hw axis gave (lower case, as data_stamps spell platforms), '' when it gave none: such an
-- issue is about the case on every platform. An issue with several hw values has one row per value.
-- Whether the issue is open is not kept here: it is read from what the store knows of the issue (tracker_issues'
-- state, written by `tracker sync`), so that a sync or a webhook that closes it needs no second write.
CREATE TABLE issue_cases (
  repo     TEXT    NOT NULL,                      -- as labeled_issues spells it (the key it hangs off)
  number   INTEGER NOT NULL,
  suite    TEXT    NOT NULL,
  dtype    TEXT    NOT NULL,
  mode     TEXT    NOT NULL,
  model    TEXT    NOT NULL,
  platform TEXT    NOT NULL DEFAULT '',
  speedup  REAL,                                -- the speedup the issue quoted, when it did
  PRIMARY KEY (repo, number, suite, dtype, mode, model, platform)
);
-- A case's issues (the Case page, the backlog, auto-acknowledge): by model first, the most selective column.
CREATE INDEX issue_cases_case ON issue_cases (model, suite, dtype, mode);
