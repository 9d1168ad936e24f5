import { env } from "cloudflare:test";
import { expect } from "vitest";
import { adminEnv, adminPost, sessionCookie } from "./admin-helpers";
import { appFetch, testEnv } from "./helpers";

// Fixtures for console forms: an env with the admin API token and the settings key, the admin API
// driven as a script would, and a reset that empties the console's tables and drops the built app's
// form catalog (through a publish, the one way the app itself drops it), so a test starts from files only.

export const API_TOKEN = "workers-admin-api-token-0123456789abcdef";
export const ENCRYPTION_KEY = "workers-settings-encryption-key-0123456789";

export function consoleEnv(overrides: Partial<Record<string, string>> = {}): Env {
  return testEnv({ ADMIN_API_TOKEN: API_TOKEN, SETTINGS_ENCRYPTION_KEY: ENCRYPTION_KEY, ...overrides });
}

/** The console env with the admin and viewer passwords, for requests with a session cookie. */
export function consoleAdminEnv(): Promise<Env> {
  return adminEnv({ ADMIN_API_TOKEN: API_TOKEN, SETTINGS_ENCRYPTION_KEY: ENCRYPTION_KEY });
}

/** A new API token of `role`, made in the console by a signed-in admin, as a person would. */
export async function makeApiToken(role: "admin" | "viewer"): Promise<string> {
  const appEnv = await consoleAdminEnv();
  const admin = await sessionCookie("admin", appEnv);
  const made = await appFetch(
    adminPost("/admin/tokens?_data=routes%2Fadmin.tokens", { intent: "create", name: `${role} script`, role }, { Cookie: admin }),
    appEnv,
  );
  expect(made.status).toBe(200);
  const { token } = (await made.json()) as { token: string };
  expect(token).toMatch(/^gpat_[A-Za-z0-9_-]{43}$/);
  return token;
}

/** One admin API call with a bearer token (ADMIN_API_TOKEN unless given), as a script makes it. */
export function api(
  method: string,
  path: string,
  {
    body,
    token = API_TOKEN,
    appEnv = consoleEnv(),
    headers = {},
  }: { body?: unknown; token?: string | null; appEnv?: Env; headers?: Record<string, string> } = {},
): Promise<Response> {
  return appFetch(
    new Request(`http://localhost${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
    }),
    appEnv,
  );
}

/** PUTs `definition` as form `id`'s draft and publishes it; returns the version. Throws unless both succeed. */
export async function putAndPublish(
  id: string,
  definition: object,
  appEnv: Env = consoleEnv(),
  confirmFieldNames = false,
): Promise<number> {
  const put = await api("PUT", `/admin/api/forms/${id}`, { body: definition, appEnv });
  if (put.status !== 200 && put.status !== 201) throw new Error(`PUT ${id}: ${put.status} ${await put.text()}`);
  const published = await api("POST", `/admin/api/forms/${id}/publish`, { body: { confirmFieldNames }, appEnv });
  if (published.status !== 200) throw new Error(`publish ${id}: ${published.status} ${await published.text()}`);
  return ((await published.json()) as { version: number }).version;
}

/** A small valid definition to start from. */
export function sampleDefinition(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: "Feedback",
    description: "Tell us what you think.",
    fields: [
      { name: "name", type: "text", label: "Your name", hint: "How to address you.", required: true, maxLength: 100 },
      { name: "email", type: "email", label: "E-mail address", hint: "For our reply.", required: true },
      {
        name: "rating",
        type: "select",
        label: "Rating",
        hint: "Pick one.",
        options: [
          { value: "good", label: "Good" },
          { value: "bad", label: "Bad" },
        ],
      },
    ],
    destinations: [{ kind: "webhook" }, { kind: "email" }, { kind: "slack" }, { kind: "discord" }],
    allowedOrigins: [],
    successMessage: "Thank you.",
    retentionDays: 30,
    ...overrides,
  };
}

const TABLES = ["form_versions", "forms", "form_settings", "admin_api_tokens"];

/** Empties the console's tables and drops the built app's form catalog. */
export async function resetConsoleForms(): Promise<void> {
  await env.DB.batch(TABLES.map((t) => env.DB.prepare(`DELETE FROM ${t}`)));
  await putAndPublish("reset-catalog", sampleDefinition());
  await env.DB.batch(TABLES.map((t) => env.DB.prepare(`DELETE FROM ${t}`)));
}
