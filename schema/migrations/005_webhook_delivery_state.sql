-- A webhook delivery is recorded (state 'processing', with its payload) in its own transaction before it is
-- processed, and marked 'done' (payload dropped) in the transaction that writes its outbox actions. A delivery still
-- 'processing' at start-up was in progress when the process died: it is retried once, then 'quarantined', so a
-- payload that kills the process cannot crash-loop the service through GitHub's redeliveries.
ALTER TABLE webhook_deliveries ADD COLUMN state TEXT NOT NULL DEFAULT 'done';  -- processing | done | quarantined
ALTER TABLE webhook_deliveries ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
ALTER TABLE webhook_deliveries ADD COLUMN payload BLOB;                         -- kept only while not 'done'
ALTER TABLE webhook_deliveries ADD COLUMN last_error TEXT NOT NULL DEFAULT '';
CREATE INDEX webhook_deliveries_unfinished ON webhook_deliveries(state) WHERE state <> 'done';
