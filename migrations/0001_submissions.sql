-- Accepted submissions. A row exists only after the Turnstile verdict said yes (or, for status
-- 'quarantined', after a bot was caught and kept for review without delivery).
CREATE TABLE submissions (
  id TEXT PRIMARY KEY,
  form_id TEXT NOT NULL,
  fields TEXT NOT NULL,               -- JSON object of validated values
  received_at TEXT NOT NULL,          -- ISO 8601, UTC
  status TEXT NOT NULL DEFAULT 'accepted' CHECK (status IN ('accepted', 'quarantined')),
  quarantine_reason TEXT,
  verify_hostname TEXT,
  verify_action TEXT,
  verify_challenge_ts TEXT
);
CREATE INDEX submissions_form_received ON submissions (form_id, received_at);
