-- Data stamps: which results a committed write changed, so that the response cache drops only the answers that read
-- them (server/http/response_cache.hpp, schema/README.md "Data stamps").
--
-- Results change only when a run, a file of it, its summaries or an artifact of it is stored, superseded or deleted.
-- Every such write, by this process or any other one on the file (`perftriage ingest --db`), fires the triggers below
-- in its own transaction: the global stamp '*' moves up by one, and the scopes the write touched take its new value:
-- 'run:<id>' of the run, 'platform:<platform, lower case>' of its platform and 'tag:<platform, lower case>:<tag>' of
-- each of its tags (a compare base names a tag or a key, tags first: schema/history_store.cpp resolve_base_run).
-- A cached answer that names the scopes it read is good while none of them holds a stamp above the one '*' held
-- when it was computed. Writes of the bot, the tokens and the audit log fire nothing: they change no result.
--
-- Triggers, not calls in the write paths: a new write path cannot forget them. They sit on the small tables that
-- every change of results touches (a run, its files, its per-group summaries, its artifacts), never on result_rows
-- or the backlog, whose rows a nightly writes by the thousand. The ones on a run's children only move the run's
-- revision; the run's own triggers stamp.
CREATE TABLE data_stamps (
  scope TEXT    PRIMARY KEY,  -- '*', 'platform:<lower(platform)>', 'run:<runs.id>', 'tag:<lower(platform)>:<tag>'
  stamp INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX data_stamps_stamp ON data_stamps(stamp);
INSERT INTO data_stamps(scope, stamp) VALUES ('*', 0);

-- A run row itself: both spellings of an UPDATE (migration 009 merged platform spellings).
CREATE TRIGGER runs_stamp_insert AFTER INSERT ON runs BEGIN
  UPDATE data_stamps SET stamp = stamp + 1 WHERE scope = '*';
  INSERT INTO data_stamps(scope, stamp)
    VALUES ('run:' || NEW.id, (SELECT stamp FROM data_stamps WHERE scope = '*')),
           ('platform:' || lower(NEW.platform), (SELECT stamp FROM data_stamps WHERE scope = '*'))
    ON CONFLICT(scope) DO UPDATE SET stamp = excluded.stamp;
  INSERT INTO data_stamps(scope, stamp)
    SELECT 'tag:' || lower(NEW.platform) || ':' || j.value, s.stamp
      FROM json_each(CASE WHEN json_valid(NEW.tags) THEN NEW.tags ELSE '[]' END) j, data_stamps s
     WHERE s.scope = '*' AND j.type = 'text'
    ON CONFLICT(scope) DO UPDATE SET stamp = excluded.stamp;
END;
CREATE TRIGGER runs_stamp_update AFTER UPDATE ON runs BEGIN
  UPDATE data_stamps SET stamp = stamp + 1 WHERE scope = '*';
  INSERT INTO data_stamps(scope, stamp)
    VALUES ('run:' || NEW.id, (SELECT stamp FROM data_stamps WHERE scope = '*')),
           ('run:' || OLD.id, (SELECT stamp FROM data_stamps WHERE scope = '*')),
           ('platform:' || lower(NEW.platform), (SELECT stamp FROM data_stamps WHERE scope = '*')),
           ('platform:' || lower(OLD.platform), (SELECT stamp FROM data_stamps WHERE scope = '*'))
    ON CONFLICT(scope) DO UPDATE SET stamp = excluded.stamp;
  INSERT INTO data_stamps(scope, stamp)
    SELECT 'tag:' || lower(NEW.platform) || ':' || j.value, s.stamp
      FROM json_each(CASE WHEN json_valid(NEW.tags) THEN NEW.tags ELSE '[]' END) j, data_stamps s
     WHERE s.scope = '*' AND j.type = 'text'
    ON CONFLICT(scope) DO UPDATE SET stamp = excluded.stamp;
  INSERT INTO data_stamps(scope, stamp)
    SELECT 'tag:' || lower(OLD.platform) || ':' || j.value, s.stamp
      FROM json_each(CASE WHEN json_valid(OLD.tags) THEN OLD.tags ELSE '[]' END) j, data_stamps s
     WHERE s.scope = '*' AND j.type = 'text'
    ON CONFLICT(scope) DO UPDATE SET stamp = excluded.stamp;
END;
CREATE TRIGGER runs_stamp_delete AFTER DELETE ON runs BEGIN
  UPDATE data_stamps SET stamp = stamp + 1 WHERE scope = '*';
  INSERT INTO data_stamps(scope, stamp)
    VALUES ('run:' || OLD.id, (SELECT stamp FROM data_stamps WHERE scope = '*')),
           ('platform:' || lower(OLD.platform), (SELECT stamp FROM data_stamps WHERE scope = '*'))
    ON CONFLICT(scope) DO UPDATE SET stamp = excluded.stamp;
  INSERT INTO data_stamps(scope, stamp)
    SELECT 'tag:' || lower(OLD.platform) || ':' || j.value, s.stamp
      FROM json_each(CASE WHEN json_valid(OLD.tags) THEN OLD.tags ELSE '[]' END) j, data_stamps s
     WHERE s.scope = '*' AND j.type = 'text'
    ON CONFLICT(scope) DO UPDATE SET stamp = excluded.stamp;
END;

-- What hangs off a run moves the run's revision, and the run's own trigger above stamps its scopes: one place that
-- knows the scopes. When the run itself is being deleted the UPDATE finds no row; its deletion stamped them.
ALTER TABLE runs ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;  -- moves with every change of the run's results
CREATE TRIGGER result_files_stamp_insert AFTER INSERT ON result_files BEGIN
  UPDATE runs SET revision = revision + 1 WHERE id = NEW.run_id;
END;
CREATE TRIGGER result_files_stamp_update AFTER UPDATE ON result_files BEGIN
  UPDATE runs SET revision = revision + 1 WHERE id = NEW.run_id;
END;
CREATE TRIGGER result_files_stamp_delete AFTER DELETE ON result_files BEGIN
  UPDATE runs SET revision = revision + 1 WHERE id = OLD.run_id;
END;
CREATE TRIGGER run_groups_stamp_insert AFTER INSERT ON run_groups BEGIN
  UPDATE runs SET revision = revision + 1 WHERE id = NEW.run_id;
END;
CREATE TRIGGER run_groups_stamp_delete AFTER DELETE ON run_groups BEGIN
  UPDATE runs SET revision = revision + 1 WHERE id = OLD.run_id;
END;
CREATE TRIGGER artifacts_stamp_insert AFTER INSERT ON artifacts BEGIN
  UPDATE runs SET revision = revision + 1 WHERE id = NEW.run_id;
END;
CREATE TRIGGER artifacts_stamp_update AFTER UPDATE ON artifacts BEGIN
  UPDATE runs SET revision = revision + 1 WHERE id = NEW.run_id;
END;
CREATE TRIGGER artifacts_stamp_delete AFTER DELETE ON artifacts BEGIN
  UPDATE runs SET revision = revision + 1 WHERE id = OLD.run_id;
END;
