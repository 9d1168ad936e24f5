// A receiver's check of Standard Webhooks' asymmetric signatures (`v1a`, ed25519), written apart from
// Gatepost's signing code on Node's own crypto, as a receiver would: it trusts a `whpk_` public key (or
// derives one from a `whsk_` key, as the local sink learns it), refuses a timestamp more than five
// minutes off, and takes the delivery when any `v1a,` signature in the header verifies.
import { createPrivateKey, createPublicKey, verify } from "node:crypto";

const TOLERANCE_S = 5 * 60;
/** RFC 8410: an Ed25519 public key's SubjectPublicKeyInfo is this prefix and its 32 bytes. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** The public key a `whpk_…` or `whsk_…` string stands for; null when it is neither. */
export function publicKeyOf(text) {
  const value = String(text).trim();
  if (value.startsWith("whpk_")) {
    const raw = Buffer.from(value.slice(5), "base64");
    return raw.length === 32 ? createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" }) : null;
  }
  if (value.startsWith("whsk_")) {
    const raw = Buffer.from(value.slice(5), "base64");
    if (raw.length !== 32 && raw.length !== 64) return null;
    const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, raw.subarray(0, 32)]), format: "der", type: "pkcs8" });
    return createPublicKey(key);
  }
  return null;
}

/** True when a `v1a` signature in `headers` verifies `body` under one of `keys` (whpk_/whsk_), within the tolerance. */
export function verifyV1a(keys, body, headers, nowSeconds = Math.floor(Date.now() / 1000)) {
  const id = String(headers["webhook-id"] ?? "");
  const timestamp = Number(headers["webhook-timestamp"]);
  if (!id || !Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > TOLERANCE_S) return false;
  const signed = Buffer.from(`${id}.${timestamp}.${body}`);
  const signatures = String(headers["webhook-signature"] ?? "")
    .split(" ")
    .filter((part) => part.startsWith("v1a,"))
    .map((part) => Buffer.from(part.slice(4), "base64"));
  const publicKeys = keys.map(publicKeyOf).filter(Boolean);
  return signatures.some((signature) => publicKeys.some((key) => verify(null, signed, key, signature)));
}
