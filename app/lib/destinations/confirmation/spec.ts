import { z } from "zod";
import type { KindSpec, KindText } from "~/lib/destinations/kind";

/** What a confirmation needs to reach the public (ADR 091): send_email reaches only verified addresses on Free. */
export const CONFIRMATION_NEEDS =
  "A confirmation reaches the public only through Cloudflare Email Sending (Workers Paid, with your sending domain onboarded) or an HTTP e-mail provider (Resend or Postmark, the form's E-mail provider setting or the site's). On the Free plan, send_email reaches only your account's verified addresses, never a visitor's.";

/** CONFIRMATION is "on" or "off"/empty; anything else is a typo worth reporting. */
export function isConfirmationOn(value: string): boolean {
  return value.toLowerCase() === "on";
}

const TEXTS = [
  { key: "subject", label: "Subject", max: 200, multiline: false },
  { key: "text", label: "Text", hint: "Your own words; never anything the sender typed.", max: 5000, multiline: true },
] as const satisfies readonly KindText[];

/** The fixed e-mail to the sender (ADR 017, 025): its subject and text are the form's own; the setting switches it on. */
export const confirmation = {
  kind: "confirmation",
  label: "Confirmation to the sender",
  testLabel: null,
  settings: [
    {
      suffix: "CONFIRMATION",
      title: "Confirmation to the sender",
      input: "",
      hint: "Your fixed text (in the form's definition), at most once a day per address.",
      type: "text",
      shown: "full",
      check: (value) => (value === "on" ? { ok: true, value } : { ok: false, message: 'Confirmation is either "on" or cleared.' }),
      problem: (value) =>
        isConfirmationOn(value) || value.toLowerCase() === "off"
          ? null
          : `is either "on" or empty (it is ${JSON.stringify(value.slice(0, 20))}); no confirmation is sent`,
      wantsEmailFrom: isConfirmationOn,
      needs: CONFIRMATION_NEEDS,
      toggle: { value: "on", on: "Switch confirmations on", off: "Switch confirmations off" },
    },
  ],
  isOn: (value) => isConfirmationOn(value("CONFIRMATION")),
  email: true,
  // Each goes to another sender's mailbox: one failing says nothing of the next.
  pausable: false,
  // The sender was promised at most one a day: redelivery never sends it again.
  once: true,
  onConsoleForms: false,
  definition: ({ line, paragraph }) =>
    z.strictObject({ kind: z.literal("confirmation"), subject: line(TEXTS[0].max), text: paragraph(TEXTS[1].max) }),
  docs: "docs/destinations.md#confirmation-to-the-sender-confirmation",
  texts: {
    legend: "Confirmation e-mail to the sender",
    intro: "Sent only while it is switched on in Destinations, at most once a day per address. Empty: none.",
    fields: TEXTS,
  },
} as const satisfies KindSpec;
