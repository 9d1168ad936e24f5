import { importPKCS8, SignJWT } from "jose";
import type { FormDef } from "~/forms/schema";
import { errorText, postAttempt, type AttemptRecord } from "~/lib/sending/attempt.server";
import { linkedFiles, type LinkedFile } from "~/lib/sending/linked-files.server";
import { defineSender, resolveApiBase, type ResolvedDestination } from "~/lib/destinations/sender.server";
import { readMessageUpTo } from "~/lib/http/read-stream.server";
import { parseServiceAccountKey, type ServiceAccountKey } from "~/lib/destinations/sheets/spec";
import type { StoredSubmission } from "~/lib/storage/submissions.server";

// Google Sheets (ADR 093): one row per submission, valueInputOption=RAW so no value is read as a formula. The
// service account's JWT buys a one-hour OAuth token, kept per isolate until a minute before it expires.

const SCOPE = "https://www.googleapis.com/auth/spreadsheets";
const API = "https://sheets.googleapis.com";
const TIMEOUT_MS = 10_000;

export interface SheetsTarget extends ResolvedDestination {
  spreadsheetId: string;
  tab: string;
  key: ServiceAccountKey;
  api: string;
}

const tokens = new Map<string, { token: string; untilMs: number }>();

/** Forgets every kept token (tests). */
export function forgetSheetsTokens(): void {
  tokens.clear();
}

/** The JWT the token endpoint trades for an access token (RFC 7523). */
export async function signAssertion(key: ServiceAccountKey, nowMs: number): Promise<string> {
  const privateKey = await importPKCS8(key.private_key, "RS256");
  const now = Math.floor(nowMs / 1000);
  return new SignJWT({ scope: SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(key.private_key_id ? { kid: key.private_key_id } : {}) })
    .setIssuer(key.client_email)
    .setAudience(key.token_uri)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(privateKey);
}

type Step<T> = { ok: true; value: T } | { ok: false; record: AttemptRecord };

function failed(detail: string, httpStatus: number | null = null, error: AttemptRecord["error"] = "http_status"): Step<never> {
  return { ok: false, record: { delivered: false, httpStatus, error, detail, latencyMs: 0, excerpt: null } };
}

async function bodyText(response: Response): Promise<string> {
  const read = response.body ? await readMessageUpTo(response, 2048) : null;
  return read ? new TextDecoder().decode(read.bytes.subarray(0, 2048)) : "";
}

/** What Google's answer means for the owner: the timeline's words, the outbox's class. */
export function classifyGoogle(status: number, clientEmail: string): { error: AttemptRecord["error"]; detail: string } {
  if (status === 429)
    return { error: "rate_limited", detail: "HTTP 429: Google's quota for this sheet is spent for now; tried again later" };
  if (status === 401 || status === 403) {
    return { error: "http_status", detail: `HTTP ${status}: Google refused access; share the sheet with ${clientEmail} as Editor` };
  }
  if (status === 404) return { error: "http_status", detail: "HTTP 404: no such spreadsheet (check its id)" };
  if (status === 400) return { error: "http_status", detail: "HTTP 400: Google refused the request (does the tab exist?)" };
  return { error: "http_status", detail: `HTTP ${status} from Google` };
}

async function accessToken(key: ServiceAccountKey, nowMs: number, doFetch: typeof fetch): Promise<Step<string>> {
  const cacheKey = `${key.client_email} ${key.token_uri} ${key.private_key_id ?? ""}`;
  const kept = tokens.get(cacheKey);
  if (kept && kept.untilMs > nowMs) return { ok: true, value: kept.token };
  try {
    // Google checks the claims on its own clock: the assertion carries the real time.
    const assertion = await signAssertion(key, Date.now());
    const response = await doFetch(key.token_uri, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString(),
    });
    const text = await bodyText(response);
    if (response.status !== 200) {
      return failed(
        `the token endpoint answered HTTP ${response.status}: the service account key was refused (${text.slice(0, 120)})`,
        response.status,
      );
    }
    const body = JSON.parse(text) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== "string") return failed("the token endpoint gave no access_token");
    const seconds = typeof body.expires_in === "number" ? body.expires_in : 3600;
    tokens.set(cacheKey, { token: body.access_token, untilMs: nowMs + Math.max(0, seconds - 60) * 1000 });
    return { ok: true, value: body.access_token };
  } catch (error) {
    return failed(`no token: ${errorText(error)}`, null, "network");
  }
}

function range(tab: string, cells: string): string {
  return encodeURIComponent(`'${tab}'!${cells}`);
}

/** The header row: the submission's id, time and version, then each field's label in the form's order. */
export function headerRow(form: FormDef): string[] {
  return ["Submission", "Received", "Form version", ...form.fields.map((field) => field.label)];
}

/** One submission as a row, in the form's field order; a file field is its signed links, one a line. */
export function submissionRow(form: FormDef, submission: StoredSubmission, files: readonly LinkedFile[]): (string | number | boolean)[] {
  return [
    submission.id,
    submission.receivedAt,
    submission.formVersion ?? "",
    ...form.fields.map((field) => {
      const value = submission.fields[field.name];
      if (field.type === "file") {
        return files
          .filter((file) => file.field === field.name)
          .map((file) => file.link?.url ?? `${file.file.name} (in the console)`)
          .join("\n");
      }
      return value === null || value === undefined || typeof value === "object" ? "" : value;
    }),
  ];
}

async function tabIsEmpty(target: SheetsTarget, token: string, doFetch: typeof fetch): Promise<Step<boolean>> {
  try {
    const url = `${target.api}/v4/spreadsheets/${encodeURIComponent(target.spreadsheetId)}/values/${range(target.tab, "1:1")}`;
    const response = await doFetch(url, {
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await bodyText(response);
    if (response.status !== 200) {
      const { error, detail } = classifyGoogle(response.status, target.key.client_email);
      return failed(detail, response.status, error);
    }
    const values = (JSON.parse(text) as { values?: unknown[] }).values;
    return { ok: true, value: !Array.isArray(values) || values.length === 0 };
  } catch (error) {
    return failed(`network: ${errorText(error)}`, null, "network");
  }
}

/** The Google Sheets kind's sending half (its settings: spec.ts). */
export const sender = defineSender<SheetsTarget>({
  kind: "sheets",
  resolve(input) {
    const { settings, own, name, variable } = input;
    const spreadsheetId = own.SHEETS_SPREADSHEET_ID;
    if (!spreadsheetId) return { ok: false, reason: `${variable("SHEETS_SPREADSHEET_ID")} is not set` };
    if (!own.SHEETS_SERVICE_ACCOUNT_KEY) return { ok: false, reason: `${variable("SHEETS_SERVICE_ACCOUNT_KEY")} is not set` };
    const key = parseServiceAccountKey(own.SHEETS_SERVICE_ACCOUNT_KEY, settings);
    if (!key.ok) return { ok: false, reason: `${variable("SHEETS_SERVICE_ACCOUNT_KEY")} ${key.problem}` };
    const api = resolveApiBase(input, "SHEETS_API_URL", API);
    if (!api.ok) return api;
    return { ok: true, destination: { kind: "sheets", name, spreadsheetId, tab: own.SHEETS_TAB || "Sheet1", key: key.key, api: api.url } };
  },
  async attempt(target, { settings, form, submission, nowMs, timeoutMs, fetch: given }) {
    const doFetch = given ?? fetch;
    const token = await accessToken(target.key, nowMs, doFetch);
    if (!token.ok) return token.record;
    const empty = await tabIsEmpty(target, token.value, doFetch);
    if (!empty.ok) return empty.record;
    const files = await linkedFiles(settings, form, submission, nowMs);
    const rows = [...(empty.value ? [headerRow(form)] : []), submissionRow(form, submission, files)];
    const url =
      `${target.api}/v4/spreadsheets/${encodeURIComponent(target.spreadsheetId)}/values/${range(target.tab, "A1")}:append` +
      "?valueInputOption=RAW&insertDataOption=INSERT_ROWS";
    const sent = await postAttempt({
      url,
      headers: { "content-type": "application/json", authorization: `Bearer ${token.value}` },
      body: JSON.stringify({ majorDimension: "ROWS", values: rows }),
      timeoutMs,
      fetch: doFetch,
    });
    if (sent.delivered || sent.httpStatus === null || sent.error === "rate_limited") return sent;
    return { ...sent, detail: classifyGoogle(sent.httpStatus, target.key.client_email).detail };
  },
});
