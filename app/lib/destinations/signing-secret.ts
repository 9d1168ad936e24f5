import { encodeBase64 } from "../crypto/base64";

// Standard Webhooks' signing secrets (ADR 042): made by Gatepost, never typed. Client-safe, so a kind's
// spec can offer one; sending/signature.server.ts signs with them.

/** Standard Webhooks' secrets: `whsec_` and base64 bytes. */
export const SIGNING_SECRET_PREFIX = "whsec_";

/** A fresh signing secret, 32 random bytes: what the console makes. */
export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
}
