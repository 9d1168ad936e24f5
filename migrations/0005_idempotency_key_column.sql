-- Idempotency keys move onto their submission: one column and a partial unique index instead of a
-- table of their own, so storing a keyed submission is one INSERT rather than two (ADR 007). The
-- meaning is unchanged: the first answer to a key is the submission holding it; a concurrent repeat
-- fails the store batch on the unique index and stores nothing; deleting the submission (erase,
-- retention) deletes its key with it.
ALTER TABLE submissions ADD COLUMN idempotency_key TEXT;
UPDATE submissions
  SET idempotency_key = (SELECT k.key FROM idempotency_keys k WHERE k.submission_id = submissions.id);
CREATE UNIQUE INDEX submissions_idempotency ON submissions (form_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
DROP TABLE idempotency_keys;
