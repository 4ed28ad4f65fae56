-- The labeler's model as `serve` last retrained it for a repository, from the tracker's synced history and the
-- maintainers' corrections of the bot's labels ([github] retrain_corrections): the bot labels that repository with it
-- from then on. `corrections` is how many corrections there were when it was trained, so the next retrain waits for
-- that many more.
CREATE TABLE label_models (
  repo        TEXT    PRIMARY KEY COLLATE NOCASE,  -- owner/name, any case (GitHub's names are case-insensitive)
  taxonomy    TEXT    NOT NULL,
  model       TEXT    NOT NULL,                    -- analyzers/labeler/model.hpp to_json
  issues      INTEGER NOT NULL,                    -- the history it learned from
  corrections INTEGER NOT NULL,
  trained_at  TEXT    NOT NULL
);
