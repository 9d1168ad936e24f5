-- The spam filter (docs/decisions/125): one per-deployment naive Bayes model trained by the owner's marks.
-- spam_model's version goes up with every mark, so each isolate's copy knows when to read it again.
CREATE TABLE spam_model (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  version INTEGER NOT NULL,
  spam_docs INTEGER NOT NULL,
  ham_docs INTEGER NOT NULL
);
INSERT INTO spam_model (id, version, spam_docs, ham_docs) VALUES (1, 0, 0, 0);

-- In how many marked submissions of each kind a feature (folded word, link host, sender domain) appeared.
CREATE TABLE spam_tokens (
  token TEXT PRIMARY KEY,
  spam INTEGER NOT NULL,
  ham INTEGER NOT NULL
) WITHOUT ROWID;

-- A submission's mark and the features it trained, so a changed mark takes back exactly what it added.
-- Goes with its submission (retention, erase, delete).
CREATE TABLE spam_marks (
  submission_id TEXT PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
  label TEXT NOT NULL CHECK (label IN ('spam', 'ham')),
  tokens TEXT NOT NULL,                -- JSON array of the features trained
  marked_at INTEGER NOT NULL
) WITHOUT ROWID;

-- What the checks said of an accepted post: the rule that matched, the filter's score and weightiest
-- words, Akismet's answer ('not_checked' on a timeout or error), and what Akismet's feedback calls need.
CREATE TABLE spam_checks (
  submission_id TEXT PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
  rule TEXT,                           -- "phrases", "links"… of the rule that matched
  score REAL,                          -- null while the filter is silent
  words TEXT,                          -- JSON array of the features that weighed most
  akismet TEXT CHECK (akismet IN ('spam', 'ham', 'not_checked')),
  akismet_params TEXT                  -- JSON of comment-check's parameters, for submit-spam / submit-ham
) WITHOUT ROWID;

-- Quarantined submissions per form, reason and UTC day: the dashboard's counts per reason per day.
CREATE INDEX submissions_quarantined_received ON submissions (received_at, quarantine_reason) WHERE status = 'quarantined';
