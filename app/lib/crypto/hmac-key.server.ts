// Importing an HMAC key costs about as much as signing, and the same few secrets sign every request, so each isolate
// keeps its imported keys: the CryptoKey only, never a promise another request could await.

const MAX_KEYS = 32;
const keys = new Map<string, CryptoKey>();
const decoder = new TextDecoder("latin1");

/** The HMAC-SHA-256 signing and verifying key for `secret` (text, or raw bytes). */
export async function hmacKey(secret: string | Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  const id = typeof secret === "string" ? `t:${secret}` : `b:${decoder.decode(secret)}`;
  const known = keys.get(id);
  if (known) return known;
  const raw = typeof secret === "string" ? new TextEncoder().encode(secret) : secret;
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  // A secret rotated many times must not grow the map for ever: forget the oldest.
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
  keys.set(id, key);
  return key;
}
