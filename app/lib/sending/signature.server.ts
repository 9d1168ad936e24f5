import { decodeBase64, encodeBase64 } from "~/lib/crypto/base64";
import { hmacKey } from "~/lib/crypto/hmac-key.server";
import { SIGNING_SECRET_PREFIX as SECRET_PREFIX } from "~/lib/destinations/signing-secret";

// Standard Webhooks signatures; several space-separated `whsec_` secrets each sign, for rotation.
// Not the `standardwebhooks` package: it hashes in pure JS on the isolate's CPU, where Web Crypto
// signs natively with a key imported once (hmac-key.server.ts). The local sink verifies with it.

const encoder = new TextEncoder();

export type ParsedSecrets = { ok: true; keys: Uint8Array<ArrayBuffer>[] } | { ok: false; reason: string };

// The same few secret values are parsed once per isolate, bounded; callers never change the result.
const MAX_PARSED = 16;
const parsed = new Map<string, ParsedSecrets>();

/** Parses a space-separated list of `whsec_<base64>` secrets. Never throws. */
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
  const keys: Uint8Array<ArrayBuffer>[] = [];
  for (const part of parts) {
    const key = part.startsWith(SECRET_PREFIX) ? decodeBase64(part.slice(SECRET_PREFIX.length)) : null;
    if (!key || key.length === 0) return { ok: false, reason: "every secret must look like whsec_<base64>" };
    // Shorter keys make HMAC-SHA256 guessable; the spec's generators use 24–64 random bytes.
    if (key.length < 16) return { ok: false, reason: "a secret decodes to fewer than 16 bytes" };
    keys.push(key);
  }
  return { ok: true, keys };
}

/** The `v1,<base64>` signature of `id.timestamp.body` under one key. */
export async function signWithKey(key: Uint8Array<ArrayBuffer>, id: string, timestampSeconds: number, body: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(key), encoder.encode(`${id}.${timestampSeconds}.${body}`));
  return `v1,${encodeBase64(mac)}`;
}

/** The webhook-signature header: one `v1,…` per key, space-separated, in the order given. */
export async function signWebhook(
  keys: readonly Uint8Array<ArrayBuffer>[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<string> {
  const signatures = await Promise.all(keys.map((key) => signWithKey(key, id, timestampSeconds, body)));
  return signatures.join(" ");
}
