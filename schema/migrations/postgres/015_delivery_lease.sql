-- The same as ../015_delivery_lease.sql: a processing webhook delivery is leased to the replica that claimed it.
ALTER TABLE webhook_deliveries ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
