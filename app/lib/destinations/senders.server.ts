import { airtableSender } from "~/lib/delivery/airtable.server";
import { confirmationSender } from "~/lib/delivery/confirmation.server";
import { discordSender } from "~/lib/delivery/discord.server";
import { emailSender } from "~/lib/delivery/email.server";
import type { KindSender } from "~/lib/delivery/kind-sender.server";
import { sheetsSender } from "~/lib/delivery/sheets.server";
import { slackSender } from "~/lib/delivery/slack.server";
import { webhookSender } from "~/lib/delivery/webhook.server";

// Every destination kind's sending half, one line each (ADR 090); the kinds themselves are listed in
// app/lib/settings/kinds/registry.ts, and a unit test holds the two lists equal.

export const SENDERS: readonly KindSender[] = [
  webhookSender,
  emailSender,
  slackSender,
  discordSender,
  confirmationSender,
  sheetsSender,
  airtableSender,
];

/** The sender of a kind; undefined for a name no kind has. */
export function senderOf(kind: string): KindSender | undefined {
  return SENDERS.find((sender) => sender.kind === kind);
}
