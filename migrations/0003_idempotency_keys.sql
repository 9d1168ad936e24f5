-- Idempotency: the first answer to a key (an Idempotency-Key header or a rendered form's _gp_sid) is
-- the submission it created. The row is written in the same D1 batch as the submission, so a key is
-- recorded exactly when its submission is; the primary key makes a concurrent repeat fail that batch
-- as a whole instead of storing a duplicate. Deleting the submission deletes its key.
CREATE TABLE idempotency_keys (
  form_id TEXT NOT NULL,
  key TEXT NOT NULL,
  submission_id TEXT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,            -- ISO 8601, UTC
  PRIMARY KEY (form_id, key)
);
CREATE INDEX idempotency_keys_submission ON idempotency_keys (submission_id);
