import { decodeBase64Url, encodeBase64Url, equalBytes } from "~/lib/crypto/base64";

// Passwords are stored as "pbkdf2-sha256:<iterations>:<salt>:<key>" (base64url; colons survive a shell's double
// quotes), as scripts/hash-password.mjs writes them. Workers' Web Crypto caps PBKDF2 at 100,000 iterations.

export const PBKDF2_ITERATIONS = 100_000;
const MAX_ITERATIONS = 100_000;
const KEY_BYTES = 32;
const FORMAT = /^pbkdf2-sha256:(\d{1,7}):([A-Za-z0-9_-]{16,}):([A-Za-z0-9_-]{40,})$/;

export interface ParsedHash {
  iterations: number;
  salt: Uint8Array<ArrayBuffer>;
  key: Uint8Array;
}

/** Parses a stored hash; null when it is not in the format above (so it can never match). */
export function parsePasswordHash(stored: string | undefined): ParsedHash | null {
  const match = FORMAT.exec((stored ?? "").trim());
  if (!match) return null;
  const iterations = Number(match[1]);
  const salt = decodeBase64Url(match[2]);
  const key = decodeBase64Url(match[3]);
  if (!salt || !key || iterations < 1 || iterations > MAX_ITERATIONS || key.length !== KEY_BYTES) return null;
  return { iterations, salt, key };
}

async function deriveKey(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, KEY_BYTES * 8);
  return new Uint8Array(bits);
}

/** Hashes a password with a fresh random salt. Never fails for a string input. */
export async function hashPassword(password: string, iterations = PBKDF2_ITERATIONS): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await deriveKey(password, salt, iterations);
  return `pbkdf2-sha256:${iterations}:${encodeBase64Url(salt)}:${encodeBase64Url(key)}`;
}

/** True only when `password` matches `stored`; a missing or malformed hash is false, never an open door. */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = parsePasswordHash(stored);
  if (!parsed || password.length === 0 || password.length > 1024) return false;
  const key = await deriveKey(password, parsed.salt, parsed.iterations);
  return equalBytes(key, parsed.key);
}
