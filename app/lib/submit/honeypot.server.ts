import { decodeBase64Url, encodeBase64Url } from "~/lib/crypto/base64url";
import { hmacKey } from "~/lib/crypto/hmac-key.server";
import { HONEYPOT_FIELD, PLAIN_HONEYPOT_FIELD, STAMP_FIELD, SUBMISSION_ID_FIELD } from "~/lib/submit/field-names";

// Bot traps that cost humans nothing. Gatepost's own pages carry a hidden field people never fill
// and a timestamp signed with FORM_SIGNING_SECRET, so a post that fills the field, forges or drops
// the stamp, or arrives faster than a person could type is a bot. Other sites cannot carry a stamp;
// they may add the plain field PLAIN_HONEYPOT_FIELD. A bot is never told: it gets the answer a
// human would, and its submission is quarantined (never delivered).
// A stamp is bound to its render's submission id (the idempotency key of the page) and lives 24 hours,
// so one harvested stamp buys at most one submission, and only for a day. An expired stamp is refused,
// not quarantined: a person who left the tab open gets their answers back with a fresh stamp instead
// of losing the submission silently. The verdict says whether the expired stamp was validly signed:
// only then did a person fill the form once already, and only then may the fresh stamp be dated back
// by the minimum fill time (accept.server.ts). Something merely shaped like an old stamp gets a fresh
// one that starts the fill time anew, so junk never buys a way around the fill-time check.

export type QuarantineReason = "honeypot_filled" | "timestamp_missing" | "timestamp_forged" | "timestamp_too_fast";

export type HoneypotVerdict = { bot: false } | { bot: true; reason: QuarantineReason };
/**
 * A page post's verdict: a honeypot verdict, or a stamp too old to judge (refused as form_expired),
 * `signed` when this server's signature on it checked out.
 */
export type PageVerdict = HoneypotVerdict | { expired: true; signed: boolean };

/** How long a rendered form may be sent from. */
export const MAX_STAMP_AGE_MS = 24 * 3_600_000;
const encoder = new TextEncoder();
const STAMP = /^v2\.(\d{13})\.([A-Za-z0-9_-]{43})$/;
// Stamps of the version before binding to the submission id (HMAC of "v1.<form>.<ms>"): honest pages
// rendered before an upgrade.
const OLD_STAMP = /^v1\.(\d{13})\.([A-Za-z0-9_-]{43})$/;

/** A stamp for a form rendered now: "v2.<ms>.<HMAC-SHA-256 of form id, submission id and ms, base64url>". */
export async function signFormStamp(secret: string, formId: string, sid: string, nowMs = Date.now()): Promise<string> {
  const issued = String(Math.floor(nowMs));
  return `v2.${issued}.${await hmac(secret, stampMessage(formId, sid, issued))}`;
}

function stampMessage(formId: string, sid: string, issued: string): string {
  return `v2.${formId}.${sid}.${issued}`;
}

/** Judges a post from Gatepost's own page. Never throws; junk of any shape is a verdict, not an error. */
export async function judgePagePost(input: {
  fields: Record<string, unknown>;
  secret: string;
  formId: string;
  minFillMs: number;
  nowMs?: number;
}): Promise<PageVerdict> {
  if (isFilled(input.fields[HONEYPOT_FIELD])) return { bot: true, reason: "honeypot_filled" };
  const stamp = input.fields[STAMP_FIELD];
  if (stamp === undefined || stamp === "") return { bot: true, reason: "timestamp_missing" };
  const old = typeof stamp === "string" ? OLD_STAMP.exec(stamp) : null;
  if (old) return { expired: true, signed: await verifyMac(input.secret, old[2], `v1.${input.formId}.${old[1]}`) };
  const match = typeof stamp === "string" ? STAMP.exec(stamp) : null;
  if (!match) return { bot: true, reason: "timestamp_forged" };
  // The stamp signs the submission id the page rendered beside it: another id (or none) is a forgery.
  const sid = input.fields[SUBMISSION_ID_FIELD];
  if (!(await verifyMac(input.secret, match[2], stampMessage(input.formId, typeof sid === "string" ? sid : "", match[1])))) {
    return { bot: true, reason: "timestamp_forged" };
  }
  const age = (input.nowMs ?? Date.now()) - Number(match[1]);
  // A stamp from the future was not made by this server's clock: treat it as forged.
  if (age < -60_000) return { bot: true, reason: "timestamp_forged" };
  if (age > MAX_STAMP_AGE_MS) return { expired: true, signed: true };
  if (age < input.minFillMs) return { bot: true, reason: "timestamp_too_fast" };
  return { bot: false };
}

/** Judges a post from another site: only the optional plain honeypot field applies. */
export function judgeApiPost(fields: Record<string, unknown>): HoneypotVerdict {
  return isFilled(fields[PLAIN_HONEYPOT_FIELD]) ? { bot: true, reason: "honeypot_filled" } : { bot: false };
}

function isFilled(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  return typeof value !== "string" || value.trim() !== "";
}

/** True when `mac` (base64url) is this server's HMAC of `message`. verify() compares in constant time natively. */
async function verifyMac(secret: string, mac: string, message: string): Promise<boolean> {
  const bytes = decodeBase64Url(mac);
  return bytes !== null && crypto.subtle.verify("HMAC", await hmacKey(secret), bytes, encoder.encode(message));
}

async function hmac(secret: string, message: string): Promise<string> {
  return encodeBase64Url(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message)));
}
