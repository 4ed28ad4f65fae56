-- A webhook delivery being processed is leased to the request that claimed it (unix milliseconds; 0 = nobody).
-- Without it a redelivery arriving while the first copy is still being processed (another replica on PostgreSQL,
-- another I/O thread here) read 'processing' as "the process died mid-way", processed it a second time and counted
-- an attempt; a third copy then quarantined a delivery that was never finished. A copy that finds a live lease now
-- answers "in_progress"; a failed attempt clears its lease so that the next redelivery retries at once, and a
-- server starting on SQLite clears every lease (the only process that could hold one is gone).
ALTER TABLE webhook_deliveries ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
