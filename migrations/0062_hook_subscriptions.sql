-- Subscriptions made by API (REST hooks, docs/decisions/123): an automation platform subscribes a URL to
-- one form's accepted submissions and unsubscribes it later (or answers 410). Each accepted submission
-- gets one outbox row per live subscription, in its own accept batch; `deliveries.destination` holds the
-- subscription's id. An ended subscription keeps its row, so its queued deliveries settle as not sent.
CREATE TABLE hook_subscriptions (
  id TEXT PRIMARY KEY,                 -- hook_<32 hex>: also the outbox rows' destination
  form_id TEXT NOT NULL,
  event TEXT NOT NULL CHECK (event IN ('submission.accepted')),
  url TEXT NOT NULL,                   -- checked by the webhook rules when made and at every attempt
  secret TEXT NOT NULL,                -- the whsec_ secret, sealed (secret-box, bound to the id)
  created_at INTEGER NOT NULL,         -- epoch ms
  created_by TEXT NOT NULL,            -- the admin user (token) that made it
  ended_at INTEGER,                    -- epoch ms: deleted by API or console, or the receiver's 410
  ended_by TEXT                        -- who ended it: a user's id, or "receiver" for a 410
);
-- The accept batch's look-up (live subscriptions of one form) and the cap's count.
CREATE INDEX hook_subscriptions_form_live ON hook_subscriptions (form_id, ended_at, created_at);
