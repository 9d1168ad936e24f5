import { z } from "zod";
import type { KindSpec } from "~/lib/destinations/kind";
import { urlSetting } from "~/lib/destinations/url-setting";

/** A Slack incoming-webhook message (Block Kit) per submission; sender.server.ts sends it. */
export const slack = {
  kind: "slack",
  product: "Slack",
  label: "Slack",
  testLabel: "Slack",
  settings: [
    urlSetting(
      {
        suffix: "SLACK_WEBHOOK_URL",
        title: "Slack incoming-webhook URL",
        input: "New Slack incoming-webhook URL",
        hint: "A message per submission. https://hooks.slack.com/…",
      },
      "slack",
    ),
  ],
  isOn: (value) => value("SLACK_WEBHOOK_URL") !== "",
  email: false,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("slack") }),
  docs: "docs/destinations.md#slack-slack",
} as const satisfies KindSpec;
