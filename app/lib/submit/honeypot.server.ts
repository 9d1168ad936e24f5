import { HONEYPOT_FIELD, PLAIN_HONEYPOT_FIELD, STAMP_FIELD, SUBMISSION_ID_FIELD } from "~/lib/forms/field-names";
import { checkFormStamp } from "~/lib/submit/form-stamp.server";

// Bot traps that cost humans nothing: a hidden field and a signed render time. A bot gets a human's answer and
// is quarantined; an expired stamp is refused instead, so a person gets their answers back with a fresh one.

export type QuarantineReason = "honeypot_filled" | "timestamp_missing" | "timestamp_forged" | "timestamp_too_fast";

export type HoneypotVerdict = { bot: false } | { bot: true; reason: QuarantineReason };
/** A page post's verdict: a honeypot verdict, or a stamp too old to judge (form_expired). */
export type PageVerdict = HoneypotVerdict | { expired: true; signed: boolean };

/** Judges a post from Gatepost's own page at `nowMs`. Never throws; junk of any shape is a verdict, not an error. */
export async function judgePagePost(input: {
  fields: Record<string, unknown>;
  secret: string;
  formId: string;
  minFillMs: number;
  nowMs: number;
}): Promise<PageVerdict> {
  const { fields, secret, formId, nowMs } = input;
  if (isFilled(fields[HONEYPOT_FIELD])) return { bot: true, reason: "honeypot_filled" };
  const stamp = await checkFormStamp({ stamp: fields[STAMP_FIELD], sid: fields[SUBMISSION_ID_FIELD], secret, formId, nowMs });
  switch (stamp.kind) {
    case "missing":
      return { bot: true, reason: "timestamp_missing" };
    case "forged":
      return { bot: true, reason: "timestamp_forged" };
    case "expired":
      return { expired: true, signed: stamp.signed };
    case "valid":
      return stamp.ageMs < input.minFillMs ? { bot: true, reason: "timestamp_too_fast" } : { bot: false };
  }
}

/** Judges a post from another site: only the optional plain honeypot field applies. */
export function judgeApiPost(fields: Record<string, unknown>): HoneypotVerdict {
  return isFilled(fields[PLAIN_HONEYPOT_FIELD]) ? { bot: true, reason: "honeypot_filled" } : { bot: false };
}

function isFilled(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  return typeof value !== "string" || value.trim() !== "";
}
