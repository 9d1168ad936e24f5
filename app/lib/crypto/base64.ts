// Base64 and base64url (RFC 4648), the one module for it; plain loops, since Uint8Array.from with a mapper costs far more.

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
// Spread into String.fromCharCode in chunks: one call per byte is slow, one call for all overflows the stack.
const CHUNK = 0x8000;

function binaryOf(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (let i = 0; i < view.length; i += CHUNK) binary += String.fromCharCode(...view.subarray(i, i + CHUNK));
  return binary;
}

/** The bytes of a binary string (as atob returns). */
export function bytesOfBinary(binary: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Standard base64 with padding. */
export function encodeBase64(bytes: ArrayBuffer | Uint8Array): string {
  return btoa(binaryOf(bytes));
}

/** Decodes standard, padded base64; null for anything else. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  return BASE64.test(text) ? bytesOfBinary(atob(text)) : null;
}

/** base64url without padding, for cookies, JWTs, stamps and password hashes. */
export function encodeBase64Url(bytes: ArrayBuffer | Uint8Array): string {
  return encodeBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decodes base64url (padding optional); returns null for anything that is not base64url. */
export function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!BASE64URL.test(text)) return null;
  try {
    return bytesOfBinary(atob(text.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return null;
  }
}

/** Compares two byte arrays in time that depends only on their lengths. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
