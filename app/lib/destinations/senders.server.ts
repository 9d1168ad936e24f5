import { airtableSender } from "~/lib/destinations/airtable/sender.server";
import { confirmationSender } from "~/lib/destinations/confirmation/sender.server";
import { discordSender } from "~/lib/destinations/discord/sender.server";
import { emailSender } from "~/lib/destinations/email/sender.server";
import type { KindSender } from "~/lib/destinations/sender.server";
import { sheetsSender } from "~/lib/destinations/sheets/sender.server";
import { slackSender } from "~/lib/destinations/slack/sender.server";
import { webhookSender } from "~/lib/destinations/webhook/sender.server";

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
