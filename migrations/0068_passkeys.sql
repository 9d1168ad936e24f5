-- Passkeys (WebAuthn, docs/decisions/130): several per person, each named, verified by @simplewebauthn.
CREATE TABLE person_passkeys (
  id TEXT PRIMARY KEY,                 -- the credential id, base64url
  person_id TEXT NOT NULL REFERENCES people (id),
  name TEXT NOT NULL,                  -- what the person called it ("work laptop")
  public_key TEXT NOT NULL,            -- the COSE public key as the library returns it, base64url
  counter INTEGER NOT NULL,
  transports TEXT,                     -- JSON array of the authenticator's transports, as a hint
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
) WITHOUT ROWID;
CREATE INDEX person_passkeys_person ON person_passkeys (person_id);

-- Challenges handed out and not yet answered: each is used once (deleted when checked) and lives
-- five minutes; a registration's is bound to the person who asked for it.
CREATE TABLE webauthn_challenges (
  challenge TEXT PRIMARY KEY,          -- base64url, 32 random bytes
  purpose TEXT NOT NULL CHECK (purpose IN ('register', 'sign-in')),
  person_id TEXT,                      -- the registering person; null for a sign-in
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
