-- `invalid`: a row holding a value no measurement has (negative or non-finite speedup, abs_latency,
-- compilation_latency or batch size; analyzers/flags). Neither passing nor slow nor failed: its speedup is
-- stored NULL (speedup_text keeps what the file says), so every query that decides slow or passing from the
-- number sees no measurement; an invalid accuracy row also counts as accuracy_failed.
ALTER TABLE results ADD COLUMN invalid INTEGER NOT NULL DEFAULT 0;

-- Rows stored before this migration: negative values are still there; of the non-finite ones only the speedup's
-- text tells (the numbers were stored NULL).
UPDATE results SET invalid = 1
 WHERE speedup < 0 OR abs_latency_ms < 0 OR compilation_latency_s < 0 OR batch_size < 0
    OR lower(trim(speedup_text)) IN ('nan', '-nan', '+nan', 'inf', '-inf', '+inf', 'infinity', '-infinity', '+infinity');
UPDATE results SET speedup = NULL, eager_latency_ms = NULL, failed = 0,
       accuracy_failed = CASE WHEN kind = 'accuracy' THEN 1 ELSE accuracy_failed END
 WHERE invalid = 1;
-- The backlog may hold such rows as slow: replay it once (schema/backlog_store.cpp).
INSERT OR IGNORE INTO maintenance(task) SELECT 'rebuild_backlog' WHERE EXISTS (SELECT 1 FROM results WHERE invalid = 1);
