-- Idempotency keys are bound to a fingerprint of the request that first used them (ADR 013, the IETF
-- Idempotency-Key draft): a repeat with the same key and the same fields gets the first answer; the
-- same key with other fields is refused. Rows stored before this column existed have no fingerprint,
-- so a reuse of their key is refused (fail closed) rather than answered with their id.
ALTER TABLE submissions ADD COLUMN idempotency_fingerprint TEXT;
