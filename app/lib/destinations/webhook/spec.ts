import { z } from "zod";
import { encodeBase64 } from "~/lib/crypto/base64";
import type { KindSpec } from "~/lib/destinations/kind";
import { urlSetting } from "~/lib/destinations/url-setting";

/** Standard Webhooks' secrets: `whsec_` and base64 bytes. */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** A fresh signing secret, 32 random bytes: what the console makes (never typed). */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** The signed JSON POST per submission (docs/webhooks.md); delivery/kinds/webhook.server.ts sends it. */
export const webhook = {
  kind: "webhook",
  label: "Webhook",
  idLabel: "Webhook id",
  testLabel: "the webhook",
  settings: [
    urlSetting(
      {
        suffix: "WEBHOOK_URL",
        title: "Webhook URL",
        input: "New webhook URL",
        hint: "Each submission is POSTed here, signed (docs/webhooks.md). https.",
      },
      "webhook",
    ),
    {
      suffix: "WEBHOOK_SECRET",
      title: "Webhook signing secret",
      input: "",
      hint: "Signs each webhook, so the receiver knows it came from here.",
      type: "text",
      shown: "never",
      local: (sink) => sink.secret,
      generate: generateWebhookSecret,
    },
  ],
  isOn: (value) => value("WEBHOOK_URL") !== "",
  email: false,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("webhook") }),
  docs: "docs/webhooks.md",
} as const satisfies KindSpec;
