// base64url without padding (RFC 4648 §5), for cookies, JWTs and password hashes. Works in workerd,
// browsers and Node alike because it only uses btoa/atob.

export function encodeBase64Url(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (const byte of view) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decodes base64url (padding optional); returns null for anything that is not base64url. */
export function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    return bytesOfBinary(atob(text.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return null;
  }
}

/** The bytes of a binary string (as atob returns). A plain loop: Uint8Array.from with a mapper costs several times more. */
export function bytesOfBinary(binary: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Compares two byte arrays in time that depends only on their lengths. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
