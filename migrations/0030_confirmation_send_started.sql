-- A confirmation goes out at most once (docs/decisions/065-confirmation-at-most-once.md). When a drain
-- starts sending one it records how many attempts its delivery had logged; a later attempt of the same
-- delivery may send only once a newer attempt is logged (the earlier one failed and said so). A replay
-- after the Worker stopped mid-send finds no newer attempt and sends nothing. NULL: the accept batch
-- took the slot, and no send has started yet.
ALTER TABLE confirmation_limits ADD COLUMN started_logs INTEGER;
