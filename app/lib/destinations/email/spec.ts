import { z } from "zod";
import { parseEmailList } from "~/lib/destinations/checks";
import { EMAIL_PROVIDERS } from "~/lib/destinations/email-providers";
import type { KindSpec } from "~/lib/destinations/kind";
import { standinUrlSetting } from "~/lib/destinations/url-setting";

const isProvider = (value: string) => (EMAIL_PROVIDERS as readonly string[]).includes(value.toLowerCase());
/** An API key as providers issue them: printable, no spaces, bounded. */
const isApiKey = (value: string) => /^[\x21-\x7e]{8,500}$/.test(value);

/** A site-wide provider setting stands in for the form's while the form names no provider of its own (ADR 097). */
const siteWide = (variable: string) => ({
  variable,
  whileUnset: "EMAIL_PROVIDER",
  note: "It is used while this form names no e-mail provider of its own; the form's provider, key and URL win together.",
});

/** A notification e-mail to the owner per submission; sender.server.ts sends it. */
export const email = {
  kind: "email",
  label: "E-mail to the owner",
  testLabel: "the owner e-mail",
  settings: [
    {
      suffix: "EMAIL_TO",
      title: "Owner e-mail addresses",
      input: "New owner e-mail addresses",
      hint: "A notification per submission, to these addresses (comma-separated).",
      type: "text",
      shown: "full",
      check: (value) => {
        const list = parseEmailList(value);
        return list
          ? { ok: true, value: list.join(", ") }
          : { ok: false, message: "Use one or more e-mail addresses, separated by commas." };
      },
      problem: (value) => (parseEmailList(value) ? null : "must be one or more e-mail addresses separated by commas; e-mails are held"),
      wantsEmailFrom: () => true,
      // The Worker's simulated send_email hands every e-mail to the sink's page, whoever it is to.
      local: () => "owner@localhost",
    },
    {
      suffix: "EMAIL_PROVIDER",
      title: "E-mail provider",
      input: "New e-mail provider (resend or postmark)",
      hint: "Empty: the site-wide EMAIL_PROVIDER if set, else Cloudflare's send_email. resend or postmark: the owner's e-mails and confirmations go through that provider's API, the same messages.",
      type: "text",
      shown: "full",
      check: (value) =>
        isProvider(value)
          ? { ok: true, value: value.toLowerCase() }
          : { ok: false, message: `Use ${EMAIL_PROVIDERS.join(" or ")}, or clear it.` },
      problem: (value) => (isProvider(value) ? null : `must be ${EMAIL_PROVIDERS.join(" or ")} (or empty); e-mails are held`),
      siteWide: siteWide("EMAIL_PROVIDER"),
    },
    {
      suffix: "EMAIL_PROVIDER_API_KEY",
      title: "E-mail provider API key",
      input: "New e-mail provider API key",
      hint: "The provider's API key (Resend: re_…; Postmark: the server token). Sealed; never shown again.",
      type: "text",
      shown: "never",
      check: (value) =>
        isApiKey(value) ? { ok: true, value } : { ok: false, message: "Paste the key as the provider shows it: no spaces." },
      siteWide: siteWide("EMAIL_PROVIDER_API_KEY"),
    },
    {
      ...standinUrlSetting(
        "EMAIL_PROVIDER_URL",
        "E-mail provider",
        "the provider's own (https://api.resend.com, https://api.postmarkapp.com)",
        "e-mails",
      ),
      siteWide: siteWide("EMAIL_PROVIDER_URL"),
    },
  ],
  isOn: (value) => value("EMAIL_TO") !== "",
  email: true,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("email") }),
  docs: "docs/destinations.md#e-mail-to-the-owner-email",
} as const satisfies KindSpec;
