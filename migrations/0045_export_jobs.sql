-- Exports built as jobs into R2 (docs/decisions/085): one row per requested export, its progress kept
-- as JSON (`state`: phase, keyset cursor, field names found, chunk sizes, multipart upload and parts),
-- so a poll or a cron tick carries on where the last one stopped. `lease_until` keeps two invocations
-- from working on one job at once. Rows and their R2 objects go after a day (the cron).
CREATE TABLE export_jobs (
  id TEXT PRIMARY KEY,
  requested_by TEXT NOT NULL,
  form_id TEXT,                       -- null: every form
  format TEXT NOT NULL CHECK (format IN ('csv', 'json')),
  range_from TEXT,
  range_to TEXT,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL DEFAULT 0,
  finished_at INTEGER
);
CREATE INDEX export_jobs_unfinished ON export_jobs (finished_at, updated_at);
CREATE INDEX export_jobs_created ON export_jobs (created_at);
-- Keyset pages over every form read submissions_received (migration 0021).
