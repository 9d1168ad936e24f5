import { z } from "zod";
import type { KindSpec } from "~/lib/destinations/kind";
import { urlSetting } from "~/lib/destinations/url-setting";

/** A Microsoft Teams Workflows webhook message (an Adaptive Card) per submission; sender.server.ts sends it. */
export const teams = {
  kind: "teams",
  product: "Microsoft Teams",
  label: "Microsoft Teams",
  testLabel: "Microsoft Teams",
  settings: [
    urlSetting(
      {
        suffix: "TEAMS_WEBHOOK_URL",
        title: "Teams Workflows webhook URL",
        input: "New Teams Workflows webhook URL",
        hint: "An Adaptive Card per submission. From a channel's Workflows: “Post to a channel when a webhook request is received”.",
      },
      "teams",
    ),
  ],
  isOn: (value) => value("TEAMS_WEBHOOK_URL") !== "",
  email: false,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("teams") }),
  docs: "docs/destinations.md#microsoft-teams-teams",
} as const satisfies KindSpec;
