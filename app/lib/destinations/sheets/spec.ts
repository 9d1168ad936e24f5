import { z } from "zod";
import LOCAL from "~/lib/destinations/sheets/local-sink.json";
import { webhookUrlProblem } from "~/lib/destinations/checks";
import type { KindSpec, SettingCheck, SettingCheckContext } from "~/lib/destinations/kind";
import { standinUrlSetting } from "~/lib/destinations/url-setting";

// Google Sheets (ADR 093): one row per submission appended to the owner's tab; the service account key is a secret.

const ServiceAccountKeySchema = z.object({
  type: z.literal("service_account"),
  client_email: z.email(),
  private_key: z.string().includes("BEGIN PRIVATE KEY"),
  private_key_id: z.string().max(200).optional(),
  token_uri: z.url().default("https://oauth2.googleapis.com/token"),
});
export type ServiceAccountKey = z.infer<typeof ServiceAccountKeySchema>;

/** The key, or why it cannot be used (never quoting it); its token URI must be one Gatepost may POST to (ADR 088). */
export function parseServiceAccountKey(
  value: string,
  { allowLoopbackHttp }: SettingCheckContext,
): { ok: true; key: ServiceAccountKey } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return { ok: false, problem: "is not JSON (paste the whole key file)" };
  }
  const parsed = ServiceAccountKeySchema.safeParse(json);
  if (!parsed.success) return { ok: false, problem: "is not a service account key (type, client_email, private_key)" };
  const problem = webhookUrlProblem(parsed.data.token_uri, allowLoopbackHttp);
  return problem ? { ok: false, problem: `has a token_uri that ${problem}` } : { ok: true, key: parsed.data };
}

const SPREADSHEET_ID = /^[A-Za-z0-9_-]{20,100}$/;
/** The local sink's spreadsheet (local-sink.json, which its stand-in sink.mjs reads too), used when `npm start` gave its key. */
export const LOCAL_SPREADSHEET_ID = LOCAL.spreadsheetId;
// eslint-disable-next-line no-control-regex -- a tab name is one line of text
const TAB = /^[^\u0000-\u001f\u007f'!]{1,100}$/;

function checkKey(value: string, context: SettingCheckContext): SettingCheck {
  if (value.length > 10_000) return { ok: false, message: "A key file is a few kilobytes: paste only the key." };
  const key = parseServiceAccountKey(value, context);
  return key.ok ? { ok: true, value } : { ok: false, message: `The key ${key.problem}.` };
}

export const sheets = {
  kind: "sheets",
  product: "Google Sheets",
  label: "Google Sheets",
  testLabel: "Google Sheets",
  settings: [
    {
      suffix: "SHEETS_SPREADSHEET_ID",
      title: "Google Sheets spreadsheet id",
      input: "New spreadsheet id",
      hint: "From the sheet's address: docs.google.com/spreadsheets/d/<id>/edit. Share the sheet with the service account's address as Editor.",
      type: "text",
      shown: "full",
      check: (value) =>
        SPREADSHEET_ID.test(value)
          ? { ok: true, value }
          : { ok: false, message: "Use the id from the sheet's address (letters, digits, - and _)." },
      problem: (value) => (SPREADSHEET_ID.test(value) ? null : "is not a spreadsheet id; rows are held"),
      local: (sink) => (sink.sheetsKey ? LOCAL_SPREADSHEET_ID : null),
    },
    {
      suffix: "SHEETS_TAB",
      title: "Google Sheets tab",
      input: "New tab name",
      hint: "The tab rows go to (empty: Sheet1). A header row is written when it is empty.",
      type: "text",
      shown: "full",
      check: (value) => (TAB.test(value) ? { ok: true, value } : { ok: false, message: "Use the tab's name as shown (no ' or !)." }),
      problem: (value) => (TAB.test(value) ? null : "is not a tab name; rows are held"),
      local: (sink, formId) => (sink.sheetsKey ? formId : null),
    },
    {
      suffix: "SHEETS_SERVICE_ACCOUNT_KEY",
      title: "Google service account key",
      input: "New service account key (JSON)",
      hint: "The JSON key of a service account (docs/destinations.md#google-sheets-sheets). Sealed; never shown again.",
      type: "text",
      maxLength: 10_000,
      local: (sink) => sink.sheetsKey ?? null,
      shown: "never",
      check: checkKey,
      problem: (value, context) => {
        const key = parseServiceAccountKey(value, context);
        return key.ok ? null : `${key.problem}; rows are held`;
      },
    },
    {
      ...standinUrlSetting("SHEETS_API_URL", "Google Sheets", "https://sheets.googleapis.com", "rows"),
      local: (sink) => (sink.sheetsKey ? `${sink.origin}/sheets` : null),
    },
  ],
  isOn: (value) => value("SHEETS_SPREADSHEET_ID") !== "",
  email: false,
  pausable: true,
  onConsoleForms: true,
  definition: () => z.strictObject({ kind: z.literal("sheets") }),
  docs: "docs/destinations.md#google-sheets-sheets",
} as const satisfies KindSpec;
