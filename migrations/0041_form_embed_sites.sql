-- The sites allowed to embed a form, set in the console (docs/forms.md#embed-on-your-site), for console
-- and code forms alike: the origins that may frame its page and post to its API, and the hostnames its
-- Turnstile tokens may come from. FORM_ALLOWED_ORIGINS and TURNSTILE_ALLOWED_HOSTNAMES win when set.
CREATE TABLE form_embed_sites (
  form_id TEXT PRIMARY KEY,
  origins TEXT NOT NULL,               -- JSON array of exact origins, scheme://host[:port]
  hostnames TEXT NOT NULL,             -- JSON array of hostnames
  updated_at INTEGER NOT NULL          -- epoch ms
);
