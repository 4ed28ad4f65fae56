-- Platform keys are case-insensitive: a platform is stored in one spelling, that of its first run (ensure_run in
-- schema/store.cpp). A database written before may hold one platform under several spellings ("a100" and "A100"):
-- every run takes the spelling of the platform's first run, and the backlog, whose rows are per platform, is
-- replayed from the runs when the next Store::open finds the task (schema/backlog_store.cpp).
INSERT OR IGNORE INTO maintenance(task)
  SELECT 'rebuild_backlog' WHERE EXISTS (
    SELECT 1 FROM runs a JOIN runs b ON a.platform = b.platform COLLATE NOCASE AND a.platform <> b.platform);
UPDATE runs SET platform = (SELECT f.platform FROM runs f WHERE f.platform = runs.platform COLLATE NOCASE
                            ORDER BY f.id LIMIT 1)
  WHERE platform <> (SELECT f.platform FROM runs f WHERE f.platform = runs.platform COLLATE NOCASE
                     ORDER BY f.id LIMIT 1);
