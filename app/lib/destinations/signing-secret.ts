import { encodeBase64 } from "~/lib/crypto/base64";
import { generateEd25519 } from "~/lib/crypto/ed25519";

// Standard Webhooks' signing secrets (ADR 042): made by Gatepost, never typed; `whsk_` keys sign v1a (ADR 120). Client-safe.

export const SIGNING_SECRET_PREFIX = "whsec_";

/** A fresh signing secret, 32 random bytes: what the console makes. */
export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** Standard Webhooks' asymmetric keys: the secret (signing) key and the public key a receiver verifies with. */
export const SIGNING_KEY_PREFIX = "whsk_";
export const PUBLIC_KEY_PREFIX = "whpk_";

/**
 * A fresh ed25519 key pair: `secret` is whsk_ and the 64 bytes of seed and public key (as libsodium
 * and Go keep a private key), `publicKey` is whpk_ and its 32 bytes.
 */
export async function generateSigningKeyPair(): Promise<{ secret: string; publicKey: string }> {
  const { seed, publicKey } = await generateEd25519();
  const both = new Uint8Array(64);
  both.set(seed);
  both.set(publicKey, 32);
  return { secret: SIGNING_KEY_PREFIX + encodeBase64(both), publicKey: PUBLIC_KEY_PREFIX + encodeBase64(publicKey) };
}
