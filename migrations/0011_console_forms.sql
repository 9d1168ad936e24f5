-- Forms made in the console (docs/decisions/040-console-forms-in-d1.md). A form file in app/forms/ is
-- never stored here: code forms stay code, and a console form may not take a code form's id.
CREATE TABLE forms (
  id TEXT PRIMARY KEY,                 -- the form id, as in /f/<id>
  draft TEXT,                          -- JSON of the draft definition; NULL when there is none
  draft_updated_at INTEGER,            -- epoch ms
  published_version INTEGER,           -- NULL until the first publish
  archived_at INTEGER,                 -- epoch ms; set: new submissions are refused (410), stored ones kept
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL          -- epoch ms of the last change of any kind (the catalog's freshness)
);

-- Every published definition, kept: each submission names the version it was validated against.
CREATE TABLE form_versions (
  form_id TEXT NOT NULL REFERENCES forms (id),
  version INTEGER NOT NULL,
  definition TEXT NOT NULL,            -- JSON, as checked at publish
  published_at INTEGER NOT NULL,       -- epoch ms
  published_by TEXT NOT NULL,          -- the console actor, as in audit_log.actor
  PRIMARY KEY (form_id, version)
);

-- Destination settings set in the console, for console and code forms alike (ADR 041). The names are
-- the suffixes of the environment's <FORM_ID>_<SUFFIX> settings, which win when set. Every value is
-- AES-GCM ciphertext under SETTINGS_ENCRYPTION_KEY (ADR 042); a row exists only while its setting is set.
CREATE TABLE form_settings (
  form_id TEXT NOT NULL,
  name TEXT NOT NULL CHECK (name IN ('WEBHOOK_URL', 'WEBHOOK_SECRET', 'EMAIL_TO', 'SLACK_WEBHOOK_URL',
    'DISCORD_WEBHOOK_URL', 'CONFIRMATION')),
  value TEXT NOT NULL,                 -- "v1.<key id>.<iv>.<ciphertext>", base64url
  updated_at INTEGER NOT NULL,         -- epoch ms
  PRIMARY KEY (form_id, name)
);

-- Tokens for the admin API (ADR 043): only a SHA-256 of each is kept; the token is shown once.
CREATE TABLE admin_api_tokens (
  id TEXT PRIMARY KEY,                 -- a short random id, shown in the console and the audit log
  name TEXT NOT NULL,                  -- what the owner called it
  role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
  token_hash TEXT NOT NULL UNIQUE,     -- hex SHA-256 of the whole token
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  last_used_at INTEGER,                -- epoch ms, at most once a minute per token
  revoked_at INTEGER
);

-- The version a submission was validated against: a console form's number ("3"), or for a code form
-- a hash of its file's definition ("code-…"). NULL for submissions stored before this column.
ALTER TABLE submissions ADD COLUMN form_version TEXT;
-- A "Send a test" from the console: a submission of sample values, delivered to one destination.
ALTER TABLE submissions ADD COLUMN test INTEGER NOT NULL DEFAULT 0;
