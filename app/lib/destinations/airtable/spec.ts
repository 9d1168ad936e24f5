import { z } from "zod";
import LOCAL from "~/lib/destinations/airtable/local-sink.json";
import type { KindSpec } from "~/lib/destinations/kind";
import { standinUrlSetting } from "~/lib/destinations/url-setting";

// Airtable: one record per submission in a base and table the owner names (ADR 094); sender.server.ts
// sends it. The personal access token is a secret, sealed when set in the console.

const BASE_ID = /^app[A-Za-z0-9]{14}$/;
// eslint-disable-next-line no-control-regex -- a table's name or id is one line of text
const TABLE = /^[^\u0000-\u001f\u007f/]{1,100}$/;
const TOKEN = /^pat[A-Za-z0-9]{14}\.[a-f0-9]{64}$/;

/** The base, table and token of the local sink's Airtable stand-in (local-sink.json, which its sink.mjs reads too). */
export const LOCAL_AIRTABLE: { baseId: string; table: string; token: string } = LOCAL;

export const airtable = {
  kind: "airtable",
  product: "Airtable",
  label: "Airtable",
  testLabel: "Airtable",
  settings: [
    {
      suffix: "AIRTABLE_BASE_ID",
      title: "Airtable base id",
      input: "New base id (app…)",
      hint: "From the base's address: airtable.com/app…/tbl…. Fields are matched by name to the form's field names.",
      type: "text",
      shown: "full",
      check: (value) =>
        BASE_ID.test(value)
          ? { ok: true, value }
          : { ok: false, message: "Use the base id from its address: app and 14 letters or digits." },
      problem: (value) => (BASE_ID.test(value) ? null : "is not a base id (app…); records are held"),
      local: () => LOCAL_AIRTABLE.baseId,
    },
    {
      suffix: "AIRTABLE_TABLE",
      title: "Airtable table",
      input: "New table name or id",
      hint: "The table's name or its id (tbl…).",
      type: "text",
      shown: "full",
      check: (value) => (TABLE.test(value) ? { ok: true, value } : { ok: false, message: "Use the table's name or id (no /)." }),
      problem: (value) => (TABLE.test(value) ? null : "is not a table name; records are held"),
      local: () => LOCAL_AIRTABLE.table,
    },
    {
      suffix: "AIRTABLE_TOKEN",
      title: "Airtable personal access token",
      input: "New personal access token (pat…)",
      hint: "A token with the data.records:write scope on this base. Sealed; never shown again.",
      type: "text",
      shown: "never",
      check: (value) =>
        TOKEN.test(value) ? { ok: true, value } : { ok: false, message: "Paste the token as Airtable shows it once (pat….…)." },
      problem: (value) => (TOKEN.test(value) ? null : "is not a personal access token (pat….…); records are held"),
      local: () => LOCAL_AIRTABLE.token,
    },
    {
      ...standinUrlSetting("AIRTABLE_API_URL", "Airtable", "https://api.airtable.com", "records"),
      local: (sink) => `${sink.origin}/airtable`,
    },
  ],
  isOn: (value) => value("AIRTABLE_BASE_ID") !== "",
  email: false,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("airtable") }),
  docs: "docs/destinations.md#airtable-airtable",
} as const satisfies KindSpec;
