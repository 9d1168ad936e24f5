-- Personal accounts for a team (docs/decisions/129): each person signs in as themselves, with a role.
-- The owner password (ADMIN_PASSWORD_HASH) stays the way in for a fresh deployment and for recovery.
CREATE TABLE people (
  id TEXT PRIMARY KEY,                 -- a short random id (the API's and the console's handle)
  email TEXT NOT NULL,                 -- lower-cased; what the audit log and every trail name
  role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
  password_hash TEXT,                  -- pbkdf2-sha256 as ADMIN_PASSWORD_HASH; null until they set one
  created_at INTEGER NOT NULL,         -- epoch ms: invited
  created_by TEXT NOT NULL,            -- the admin user that invited them
  joined_at INTEGER,                   -- epoch ms: followed the invitation
  last_sign_in_at INTEGER,
  revoked_at INTEGER                   -- epoch ms: removed; their sessions and tokens end with them
);
-- One live person per address; a removed one keeps their row, so old audit lines still read.
CREATE UNIQUE INDEX people_live_email ON people (email) WHERE revoked_at IS NULL;

-- One-time invitation links: only a SHA-256 of the link's token is kept, like API tokens (ADR 043).
CREATE TABLE person_invitations (
  token_hash TEXT PRIMARY KEY,         -- hex SHA-256 of the token in the link
  person_id TEXT NOT NULL REFERENCES people (id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,         -- a day after created_at
  used_at INTEGER
) WITHOUT ROWID;
CREATE INDEX person_invitations_person ON person_invitations (person_id);

-- An API token made by a person is theirs: it ends with them, and never outranks their role.
ALTER TABLE admin_api_tokens ADD COLUMN person_id TEXT;
CREATE INDEX admin_api_tokens_person ON admin_api_tokens (person_id) WHERE person_id IS NOT NULL;
