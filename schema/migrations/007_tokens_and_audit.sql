-- API tokens: a token is shown once at creation and stored only as a salted SHA-256 hash. A client
-- presents `Bearer <name-free secret>`; the lookup is by `token_id` (a public prefix of the token), then the hash is
-- compared in constant time. Revoking keeps the row (the audit log refers to the name).
CREATE TABLE api_tokens (
  id          INTEGER PRIMARY KEY,
  name        TEXT    NOT NULL UNIQUE,
  token_id    TEXT    NOT NULL UNIQUE,          -- the public part of the token, used to find the row
  salt        BLOB    NOT NULL,
  hash        BLOB    NOT NULL,                 -- SHA-256(salt || secret)
  scopes      TEXT    NOT NULL,                 -- space-separated: read upload triage bot admin
  created_at  TEXT    NOT NULL,
  expires_at  TEXT,                             -- ISO-8601 UTC; NULL = never
  revoked_at  TEXT,
  last_used_at TEXT
);

-- Who did what that cannot be undone or that changes who may do what: token create / revoke, run deletion,
-- restore, retention deletes.
CREATE TABLE audit_log (
  id      INTEGER PRIMARY KEY,
  at      TEXT NOT NULL,                        -- ISO-8601 UTC
  actor   TEXT NOT NULL,                        -- a token name, "cli:<user>", or "retention"
  action  TEXT NOT NULL,                        -- token.create | token.revoke | run.delete | retention | restore
  target  TEXT NOT NULL DEFAULT '',
  detail  TEXT NOT NULL DEFAULT '{}'            -- JSON
);
CREATE INDEX audit_log_at ON audit_log(at);
