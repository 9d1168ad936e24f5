-- Export jobs bound to the session or token that asked (docs/decisions/109): every password admin
-- signs in as one identity, so `requested_by` cannot keep one person's job from another's poll;
-- `owner` holds a digest of the session's id (or the token's, or the Access identity). The index
-- counts a person's unfinished jobs for the cap on running exports.
ALTER TABLE export_jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX export_jobs_requester_running ON export_jobs (requested_by, finished_at);
