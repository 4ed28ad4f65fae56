-- A tracker's issues and their labels as GitHub returns them (`perftriage tracker sync`, server/bot/tracker_sync.hpp),
-- the history a label model learns from, and where each repository's sync stands (docs/tracker-sync.md).
--
-- Repository names are case-insensitive on GitHub, so they are here too (NOCASE, ASCII like GitHub's grammar):
-- `tracker sync --repo Intel/Torch-XPU-Ops` resumes the sync of intel/torch-xpu-ops instead of starting another.
-- A plain rowid table rather than WITHOUT ROWID: a body may be 64 KiB, far over the row size WITHOUT ROWID suits.
CREATE TABLE tracker_issues (
  repo       TEXT    NOT NULL COLLATE NOCASE,  -- owner/name as asked
  number     INTEGER NOT NULL,
  title      TEXT    NOT NULL,                  -- at most 256 characters (GitHub's own limit; longer is cut)
  body       TEXT    NOT NULL DEFAULT '',       -- at most 65536 bytes, cut at a character boundary
  labels     TEXT    NOT NULL DEFAULT '[]',     -- JSON array of the label names, in GitHub's order, at most 100
  state      TEXT    NOT NULL CHECK (state IN ('open', 'closed')),
  updated_at TEXT    NOT NULL,                  -- GitHub's ISO 8601 string, as sent ("2024-05-01T12:00:00Z")
  synced_at  TEXT    NOT NULL,                  -- when this row was last written (UTC)
  PRIMARY KEY (repo, number)
);

-- One row per repository: what the next `tracker sync` asks for. Why a cursor and not a page number: the sync asks
-- for the issues sorted by updated_at ascending, and an issue edited while a sync runs moves to the end of that
-- list, so the items behind it shift one place towards the front; resuming at "page N" of the same query would then
-- skip the item that shifted onto page N-1, and nothing would ever fetch it again. So each request asks
-- `since=cursor_updated_at` (GitHub's since is inclusive) from page 1: everything updated before the cursor is
-- stored, an issue edited meanwhile comes again later (it is past the cursor), and the issues sharing the cursor's
-- second are fetched twice at worst (an upsert). `next_page` only moves while the cursor cannot: a page whose issues
-- all carry the cursor's own timestamp (a bulk edit of more than a page in one second) is followed by page 2, 3, ...
-- of the same `since`, and a page that moves the cursor sets it back to 1. A page's issues and this row are written
-- in one transaction, so a sync killed between pages resumes exactly after the last page stored; once `finished`,
-- the next sync is incremental from the cursor.
CREATE TABLE tracker_sync (
  repo              TEXT    NOT NULL COLLATE NOCASE PRIMARY KEY,
  since             TEXT    NOT NULL DEFAULT '',  -- the --since asked ("" = the whole history)
  cursor_updated_at TEXT    NOT NULL DEFAULT '',  -- the newest updated_at of the pages stored ("" = none yet)
  next_page         INTEGER NOT NULL DEFAULT 1,   -- the page of since=cursor to ask next (1 unless ties span pages)
  finished          INTEGER NOT NULL DEFAULT 0,   -- 1: the last pass reached the end of the list
  last_error        TEXT    NOT NULL DEFAULT '',  -- why the last pass stopped early ("" = it did not)
  updated_at        TEXT    NOT NULL              -- when this row was last written (UTC)
);
