// SHA-256, the one place Gatepost hashes with it, and lowercase hex through a table (per-byte padStart showed in profiles).

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
const encoder = new TextEncoder();

/** Lowercase hex of `bytes`. */
export function encodeHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let text = "";
  for (let i = 0; i < view.length; i++) text += HEX[view[i]!];
  return text;
}

/** SHA-256 of `data` (text as UTF-8). */
export async function sha256(data: string | ArrayBuffer | Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", typeof data === "string" ? encoder.encode(data) : data));
}

/** SHA-256 of `data` (text as UTF-8), in lowercase hex. */
export async function sha256Hex(data: string | ArrayBuffer | Uint8Array<ArrayBuffer>): Promise<string> {
  return encodeHex(await sha256(data));
}
