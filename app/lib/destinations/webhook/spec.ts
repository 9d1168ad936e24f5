import { z } from "zod";
import type { KindSpec } from "~/lib/destinations/kind";
import { generateSigningKeyPair, generateSigningSecret } from "~/lib/destinations/signing-secret";
import { urlSetting } from "~/lib/destinations/url-setting";

/** The signed JSON POST per submission (docs/webhooks.md); sender.server.ts sends it. */
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
      hint: "Signs each webhook, so the receiver knows it came from here: a shared secret (v1), or a key pair whose public key the receiver verifies with (v1a).",
      type: "text",
      shown: "never",
      local: (sink) => sink.secret,
      generate: generateSigningSecret,
      generatePair: generateSigningKeyPair,
    },
  ],
  isOn: (value) => value("WEBHOOK_URL") !== "",
  email: false,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("webhook") }),
  docs: "docs/webhooks.md",
} as const satisfies KindSpec;
