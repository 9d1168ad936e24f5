-- The outbox: one row per (submission, destination), written in the same D1 batch as the submission,
-- so "accepted" always means "queued for every destination". Rows are never deleted silently: only an
-- operator's delete/erase or the form's retention removes them, together with their submission.
CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,                 -- the webhook-id: stable across every retry and redelivery
  submission_id TEXT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
  form_id TEXT NOT NULL,
  destination TEXT NOT NULL,           -- the destination's name in the form definition
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,    -- epoch ms; due when <= now
  lease_owner TEXT,                    -- the drainer holding the claim
  lease_until INTEGER,                 -- epoch ms; an expired lease may be claimed again
  last_error TEXT,
  created_at TEXT NOT NULL,            -- ISO 8601, UTC
  delivered_at TEXT,
  UNIQUE (submission_id, destination)
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_form_status ON deliveries (form_id, status);

-- Every attempt to deliver, as the receiver saw it: the delivery log shown in the admin timeline.
CREATE TABLE delivery_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempted_at TEXT NOT NULL,          -- ISO 8601, UTC
  http_status INTEGER,                 -- null when no response came back
  error TEXT,                          -- error class: timeout, network, redirect, http_status
  latency_ms INTEGER NOT NULL,
  response_excerpt TEXT                -- the first 1 KiB of the response body
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, id);

-- Fixed-window counters for rate limits (forms, the verify endpoint, admin sign-in). One atomic
-- upsert per window keeps counts exact under concurrency, which KV read-then-write cannot.
CREATE TABLE rate_limits (
  key TEXT NOT NULL,                   -- e.g. "form:contact:ip:203.0.113.7:m"
  window_start INTEGER NOT NULL,       -- epoch seconds, start of the window
  count INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limits_window ON rate_limits (window_start);
