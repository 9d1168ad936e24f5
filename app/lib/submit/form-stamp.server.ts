import { decodeBase64Url, encodeBase64Url } from "~/lib/crypto/base64";
import { hmacKey } from "~/lib/crypto/hmac-key.server";

// The stamp of Gatepost's own form pages: the render time, signed over the form and submission id, so one
// harvested stamp buys at most one submission within MAX_STAMP_AGE_MS.

export const MAX_STAMP_AGE_MS = 24 * 3_600_000;
/** A stamp this far in the future was not made by this server's clock. */
const MAX_CLOCK_SKEW_MS = 60_000;
const encoder = new TextEncoder();
const STAMP = /^v2\.(\d{13})\.([A-Za-z0-9_-]{43})$/;
// Stamps from before the submission id was signed: answered as expired.
const OLD_STAMP = /^v1\.(\d{13})\.([A-Za-z0-9_-]{43})$/;

export type StampCheck = { kind: "missing" | "forged" } | { kind: "expired"; signed: boolean } | { kind: "valid"; ageMs: number };

/** A stamp for a form rendered at `nowMs`: "v2.<ms>.<HMAC-SHA-256 of form id, submission id and ms, base64url>". */
export async function signFormStamp(secret: string, formId: string, sid: string, nowMs: number): Promise<string> {
  const issued = String(Math.floor(nowMs));
  return `v2.${issued}.${await hmac(secret, stampMessage(formId, sid, issued))}`;
}

/** Checks a posted stamp against the form and the submission id posted beside it. Never throws. */
export async function checkFormStamp(input: {
  stamp: unknown;
  sid: unknown;
  secret: string;
  formId: string;
  nowMs: number;
}): Promise<StampCheck> {
  const { stamp, secret, formId } = input;
  if (stamp === undefined || stamp === "") return { kind: "missing" };
  const old = typeof stamp === "string" ? OLD_STAMP.exec(stamp) : null;
  if (old) return { kind: "expired", signed: await verifyMac(secret, old[2], `v1.${formId}.${old[1]}`) };
  const match = typeof stamp === "string" ? STAMP.exec(stamp) : null;
  if (!match) return { kind: "forged" };
  const sid = typeof input.sid === "string" ? input.sid : "";
  if (!(await verifyMac(secret, match[2], stampMessage(formId, sid, match[1])))) return { kind: "forged" };
  const ageMs = input.nowMs - Number(match[1]);
  if (ageMs < -MAX_CLOCK_SKEW_MS) return { kind: "forged" };
  if (ageMs > MAX_STAMP_AGE_MS) return { kind: "expired", signed: true };
  return { kind: "valid", ageMs };
}

function stampMessage(formId: string, sid: string, issued: string): string {
  return `v2.${formId}.${sid}.${issued}`;
}

/** True when `mac` (base64url) is this server's HMAC of `message`. verify() compares in constant time natively. */
async function verifyMac(secret: string, mac: string, message: string): Promise<boolean> {
  const bytes = decodeBase64Url(mac);
  return bytes !== null && crypto.subtle.verify("HMAC", await hmacKey(secret), bytes, encoder.encode(message));
}

async function hmac(secret: string, message: string): Promise<string> {
  return encodeBase64Url(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message)));
}
