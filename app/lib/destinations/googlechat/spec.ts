import { z } from "zod";
import type { KindSpec } from "~/lib/destinations/kind";
import { urlSetting } from "~/lib/destinations/url-setting";

/** A Google Chat incoming-webhook message (a card) per submission; sender.server.ts sends it. */
export const googleChat = {
  kind: "googlechat",
  product: "Google Chat",
  label: "Google Chat",
  testLabel: "Google Chat",
  settings: [
    urlSetting(
      {
        suffix: "GOOGLE_CHAT_WEBHOOK_URL",
        title: "Google Chat webhook URL",
        input: "New Google Chat webhook URL",
        hint: "A card per submission in a space. https://chat.googleapis.com/v1/spaces/…/messages?key=…",
      },
      "googlechat",
    ),
  ],
  isOn: (value) => value("GOOGLE_CHAT_WEBHOOK_URL") !== "",
  email: false,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("googlechat") }),
  docs: "docs/destinations.md#google-chat-googlechat",
} as const satisfies KindSpec;
