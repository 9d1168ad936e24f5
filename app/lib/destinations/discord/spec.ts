import { z } from "zod";
import type { KindSpec } from "~/lib/destinations/kind";
import { urlSetting } from "~/lib/destinations/url-setting";

/** A Discord webhook message (an embed) per submission; sender.server.ts sends it. */
export const discord = {
  kind: "discord",
  product: "Discord",
  label: "Discord",
  testLabel: "Discord",
  settings: [
    urlSetting(
      {
        suffix: "DISCORD_WEBHOOK_URL",
        title: "Discord webhook URL",
        input: "New Discord webhook URL",
        hint: "A message per submission. https://discord.com/api/webhooks/…",
      },
      "discord",
    ),
  ],
  isOn: (value) => value("DISCORD_WEBHOOK_URL") !== "",
  email: false,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("discord") }),
  docs: "docs/destinations.md#discord-discord",
} as const satisfies KindSpec;
