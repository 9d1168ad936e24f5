-- A destination's run of failed attempts (docs/decisions/071): past PAUSE_AFTER_FAILURES in a row it is
-- paused: its deliveries stay pending without spending attempts, one of them is tried as a probe every
-- PROBE_INTERVAL_MS, and any success (a probe, a new submission's first attempt) or an admin resumes it.
-- A row is written only when something fails, so a healthy destination costs no writes.
CREATE TABLE destination_health (
  form_id TEXT NOT NULL,
  destination TEXT NOT NULL,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  last_failure_at INTEGER,
  -- Set while paused (ms since the epoch), else NULL.
  paused_at INTEGER,
  -- When the next probe may be claimed, while paused.
  probe_at INTEGER,
  -- When the owner was told of this pause (once per pause), else NULL.
  notified_at INTEGER,
  PRIMARY KEY (form_id, destination)
);
