-- Server-side operator sessions (docs/decisions/014-server-side-admin-sessions.md). The cookie holds
-- only a signed random id; deleting the row ends the session wherever the cookie was copied to.
CREATE TABLE admin_sessions (
  id TEXT PRIMARY KEY,               -- 256 random bits, base64url
  data TEXT NOT NULL,                -- JSON: {"sub", "role", "ver"} (ver: fingerprint of the role's password hash)
  created_at INTEGER NOT NULL,       -- ms since the epoch
  expires_at INTEGER NOT NULL        -- ms since the epoch; rows past it are ignored and pruned at sign-in
);
CREATE INDEX admin_sessions_expires_at ON admin_sessions (expires_at);
