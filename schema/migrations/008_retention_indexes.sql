-- Data safety: deleting a run and the retention task find a run's files and the old raw bytes by index.
-- A run's files: deleting a run (DELETE /api/v1/runs/{key}, perftriage runs delete, retention) removes them by
-- run_id; the only index on run_id so far was the partial one over live files.
CREATE INDEX result_files_run ON result_files(run_id);
-- Files whose raw bytes are still kept, by upload time: the retention task drops the raw bytes of old uploads
-- (raw_deflate becomes the empty blob, which no deflate stream is; the parsed rows stay) in bounded batches, and
-- finds the next batch here without reading every stored file. A dropped file leaves the index.
CREATE INDEX result_files_raw_kept ON result_files(uploaded_at) WHERE length(raw_deflate) > 0;
