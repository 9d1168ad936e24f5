-- Who did what in the operator console, and when. Rows outlive the submissions they name (a delete
-- or erase is itself audited), so they never hold field values or the e-mail address of an erasure.
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,                  -- ISO 8601, UTC
  actor TEXT NOT NULL,               -- "password:admin", "password:viewer" or "access:<email>"
  role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
  action TEXT NOT NULL,              -- e.g. "submission.delete", "erase", "export"
  target TEXT,                       -- a submission id, form id, or null
  detail TEXT,                       -- JSON with counts and non-personal parameters
  ip TEXT
);
CREATE INDEX audit_log_at ON audit_log (at);
