import { decodeBase64, encodeBase64 } from "~/lib/crypto/base64";
import { ED25519_SEED_BYTES, importEd25519Seed } from "~/lib/crypto/ed25519";
import { hmacKey } from "~/lib/crypto/hmac-key.server";
import { SIGNING_SECRET_PREFIX as SECRET_PREFIX, SIGNING_KEY_PREFIX } from "~/lib/destinations/signing-secret";

// Standard Webhooks signatures, each of several secrets signing: `whsec_` signs v1 (HMAC-SHA256), `whsk_` v1a
// (ed25519, ADR 120). Not the `standardwebhooks` package: it hashes in JS on the isolate's CPU, where Web
// Crypto signs natively with a key imported once.

const encoder = new TextEncoder();

/** An HMAC secret's bytes (v1), or an ed25519 key's 32-byte seed (v1a). */
export type SigningKey = Uint8Array<ArrayBuffer> | { ed25519: Uint8Array<ArrayBuffer> };

export type ParsedSecrets = { ok: true; keys: SigningKey[] } | { ok: false; reason: string };

const MAX_PARSED = 16;
const parsed = new Map<string, ParsedSecrets>();

/** Parses a space-separated list of `whsec_<base64>` secrets and `whsk_<base64>` keys. Never throws. */
export function parseWebhookSecrets(raw: string | undefined | null): ParsedSecrets {
  const text = raw ?? "";
  const known = parsed.get(text);
  if (known) return known;
  const result = parseSecrets(text);
  if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value!);
  parsed.set(text, result);
  return result;
}

function parseSecrets(raw: string): ParsedSecrets {
  const parts = raw.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return { ok: false, reason: "no secret is set" };
  const keys: SigningKey[] = [];
  for (const part of parts) {
    if (part.startsWith(SIGNING_KEY_PREFIX)) {
      // The seed alone, or seed and public key (libsodium's and Go's private key): the seed signs.
      const key = decodeBase64(part.slice(SIGNING_KEY_PREFIX.length));
      if (!key || (key.length !== ED25519_SEED_BYTES && key.length !== 2 * ED25519_SEED_BYTES))
        return { ok: false, reason: "a whsk_ key must be base64 of an ed25519 key (32 or 64 bytes)" };
      keys.push({ ed25519: key.slice(0, ED25519_SEED_BYTES) });
      continue;
    }
    const key = part.startsWith(SECRET_PREFIX) ? decodeBase64(part.slice(SECRET_PREFIX.length)) : null;
    if (!key || key.length === 0) return { ok: false, reason: "every secret must look like whsec_<base64> (or a whsk_ key)" };
    // Shorter keys make HMAC-SHA256 guessable; the spec's generators use 24–64 random bytes.
    if (key.length < 16) return { ok: false, reason: "a secret decodes to fewer than 16 bytes" };
    keys.push(key);
  }
  return { ok: true, keys };
}

// Importing an ed25519 key costs more than signing with it: each isolate keeps the few it signs with.
const MAX_ED_KEYS = 16;
const edKeys = new Map<string, CryptoKey>();

async function ed25519Key(seed: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  const id = encodeBase64(seed);
  const known = edKeys.get(id);
  if (known) return known;
  const key = await importEd25519Seed(seed);
  if (edKeys.size >= MAX_ED_KEYS) edKeys.delete(edKeys.keys().next().value!);
  edKeys.set(id, key);
  return key;
}

/** The `v1,<base64>` (HMAC) or `v1a,<base64>` (ed25519) signature of `id.timestamp.body` under one key. */
export async function signWithKey(key: SigningKey, id: string, timestampSeconds: number, body: string): Promise<string> {
  const content = encoder.encode(`${id}.${timestampSeconds}.${body}`);
  if (key instanceof Uint8Array) return `v1,${encodeBase64(await crypto.subtle.sign("HMAC", await hmacKey(key), content))}`;
  return `v1a,${encodeBase64(await crypto.subtle.sign("Ed25519", await ed25519Key(key.ed25519), content))}`;
}

/** The webhook-signature header: one signature per key, space-separated, in the order given. */
export async function signWebhook(keys: readonly SigningKey[], id: string, timestampSeconds: number, body: string): Promise<string> {
  const signatures = await Promise.all(keys.map((key) => signWithKey(key, id, timestampSeconds, body)));
  return signatures.join(" ");
}
