import { z } from "zod";
import { parseEmailList } from "../destination-settings";
import type { KindSpec } from "./kind";

/** A notification e-mail to the owner per submission; delivery/kinds/email.server.ts sends it. */
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
  ],
  isOn: (value) => value("EMAIL_TO") !== "",
  email: true,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("email") }),
  docs: "docs/destinations.md#e-mail-to-the-owner-email",
} as const satisfies KindSpec;
