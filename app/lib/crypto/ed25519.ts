import { decodeBase64Url } from "~/lib/crypto/base64";

// Ed25519 through Web Crypto (workerd, Node 20 and browsers implement it natively). A private key is
// kept as its 32-byte seed and imported as PKCS#8, the one private format Web Crypto imports without
// the public half; the public key comes from the imported key's JWK.

/** RFC 8410's PKCS#8 prefix for an Ed25519 private key: the 32-byte seed follows it. */
const PKCS8_PREFIX = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
export const ED25519_SEED_BYTES = 32;

/** The private key of `seed`, for signing (extractable only where the public key is wanted). */
export function importEd25519Seed(seed: Uint8Array, extractable = false): Promise<CryptoKey> {
  const pkcs8 = new Uint8Array(PKCS8_PREFIX.length + ED25519_SEED_BYTES);
  pkcs8.set(PKCS8_PREFIX);
  pkcs8.set(seed.subarray(0, ED25519_SEED_BYTES), PKCS8_PREFIX.length);
  return crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, extractable, ["sign"]);
}

/** The 32-byte public key of `seed`. */
export async function ed25519PublicKey(seed: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const jwk = await crypto.subtle.exportKey("jwk", await importEd25519Seed(seed, true));
  return decodeBase64Url(String(jwk.x))!;
}

/** A fresh key pair: the seed and its public key. */
export async function generateEd25519(): Promise<{ seed: Uint8Array<ArrayBuffer>; publicKey: Uint8Array<ArrayBuffer> }> {
  const seed = crypto.getRandomValues(new Uint8Array(ED25519_SEED_BYTES));
  return { seed, publicKey: await ed25519PublicKey(seed) };
}
