import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { createHmac } from "node:crypto";
import { inject } from "vitest";
// The real Worker's fetch handler, with the build it imports (`remix vite:build`; npm test builds before this layer).
import { handleFetch } from "../../functions/fetch";

export { standinToken } from "../../dev/standin-token";
import { standinToken } from "../../dev/standin-token";

export const TEST_SECRET = "1x0000000000000000000000000000000AA";
export const SIGNING_SECRET = "workers-test-signing-secret-0123456789abcdef";
export const FILE_LINK_SECRET = "workers-test-file-link-secret-0123456789abcdef";

export const standin = {
  origin: () => inject("standinOrigin"),
  verifyUrl: () => `${inject("standinOrigin")}/turnstile/v0/siteverify`,
  async setMode(mode: string, options: { delayMs?: number; times?: number } = {}) {
    await fetch(`${inject("standinOrigin")}/__standin/mode`, { method: "POST", body: JSON.stringify({ mode, ...options }) });
  },
  async reset() {
    await fetch(`${inject("standinOrigin")}/__standin/reset`, { method: "POST" });
  },
  async calls(): Promise<Array<Record<string, string>>> {
    return (await fetch(`${inject("standinOrigin")}/__standin/calls`)).json();
  },
};

/**
 * A SUBMIT_LIMITER that never refuses: tests post far more often than a person, from one address, and
 * the throttle's isolate budget would carry counts from one test into the next. Throttle tests
 * (submit-throttle.test.ts) put their own limiter in, or none, to test the isolate budget.
 */
export const UNLIMITED: RateLimit = { limit: async () => ({ success: true }) };

/** The env the app sees in these tests: real local D1, the stand-in provider, the always-pass test secret. */
export function testEnv(overrides: Partial<Record<string, string>> = {}): Env {
  return {
    ...env,
    SUBMIT_LIMITER: UNLIMITED,
    // The real export queue would run its consumer after a test has ended, on storage already popped:
    // tests that export hand messages on themselves (export-helpers.ts).
    EXPORT_QUEUE: undefined as unknown as Queue,
    TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
    TURNSTILE_SECRET_KEY: TEST_SECRET,
    TURNSTILE_VERIFY_URL: standin.verifyUrl(),
    TURNSTILE_SCRIPT_URL: `${standin.origin()}/turnstile/v0/api.js`,
    FORM_SIGNING_SECRET: SIGNING_SECRET,
    FILE_LINK_SECRET,
    // Tests send many posts from one IP within a minute; rate-limit tests set these back.
    FORM_RATE_LIMIT_PER_MINUTE: "1000",
    FORM_RATE_LIMIT_PER_DAY: "10000",
    ...overrides,
  } as Env;
}

/**
 * Sends a request through the real Worker's fetch handler (functions/fetch.ts: the page origin guard,
 * then the built Remix server) and waits for waitUntil work. Adds the Host header every real HTTP
 * request carries. `now` is the clock the app reads (Date.now unless a test stops it: `at(ms)`).
 */
export async function appFetch(
  request: Request,
  appEnv: Env = testEnv(),
  {
    onResponse,
    now = Date.now,
  }: { /** Runs when the response is ready, before waitUntil work is awaited. */ onResponse?: () => void; now?: () => number } = {},
): Promise<Response> {
  if (!request.headers.has("host")) request.headers.set("host", new URL(request.url).host);
  const ctx = createExecutionContext();
  const response = await handleFetch(request, appEnv, ctx, now);
  onResponse?.();
  await waitOnExecutionContext(ctx);
  return response;
}

/**
 * A plain HTML form post, as a browser sends it from Gatepost's own page: for /f/:formId it carries
 * the signed stamp the page renders, issued `stampAgeMs` before `nowMs` (unless the fields bring their own).
 */
export function formPost(
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
  { stampAgeMs = 10_000, nowMs = Date.now() }: { stampAgeMs?: number; nowMs?: number } = {},
) {
  const page = /^\/f\/([^/]+)$/.exec(path);
  // The page renders a submission id beside the stamp, which is signed over it.
  const sid = fields._gp_sid ?? crypto.randomUUID();
  const body = page && !("_gp_ts" in fields) ? { _gp_ts: signedStamp(page[1], nowMs - stampAgeMs, sid), _gp_sid: sid, ...fields } : fields;
  return new Request(`http://localhost${path}`, {
    method: "POST",
    body: new URLSearchParams(body).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", "CF-Connecting-IP": "203.0.113.7", ...headers },
  });
}

/** A file to attach to a multipart post. */
export interface PostedFile {
  field: string;
  name: string;
  bytes: Uint8Array<ArrayBuffer>;
  /** What the browser claims; Gatepost never believes it (the bytes decide). */
  type?: string;
}

/** The bytes of a small but well-formed-looking PDF of `size` bytes (at least 20). */
export function pdfBytes(size = 1024, seed = "Gatepost test PDF"): Uint8Array<ArrayBuffer> {
  const head = new TextEncoder().encode(`%PDF-1.7\n% ${seed}\n`);
  const tail = new TextEncoder().encode("\n%%EOF\n");
  const bytes = new Uint8Array(Math.max(size, head.length + tail.length));
  bytes.set(head);
  for (let i = head.length; i < bytes.length - tail.length; i++) bytes[i] = 0x20 + (i % 90);
  bytes.set(tail, bytes.length - tail.length);
  return bytes;
}

/**
 * A multipart post with files, as a browser sends the page's form (with its signed stamp for
 * /f/:formId) or as another site's backend posts to the API.
 */
export function multipartPost(
  path: string,
  fields: Record<string, string>,
  files: readonly PostedFile[],
  headers: Record<string, string> = {},
  { stampAgeMs = 10_000 }: { stampAgeMs?: number } = {},
): Request {
  const page = /^\/f\/([^/]+)$/.exec(path);
  const sid = fields._gp_sid ?? crypto.randomUUID();
  const all =
    page && !("_gp_ts" in fields) ? { _gp_ts: signedStamp(page[1], Date.now() - stampAgeMs, sid), _gp_sid: sid, ...fields } : fields;
  const body = new FormData();
  for (const [name, value] of Object.entries(all)) body.append(name, value);
  for (const file of files) body.append(file.field, new File([file.bytes], file.name, { type: file.type ?? "application/octet-stream" }));
  return new Request(`http://localhost${path}`, { method: "POST", body, headers: { "CF-Connecting-IP": "203.0.113.7", ...headers } });
}

/** The stamp Gatepost's page would render at `issuedMs` beside `sid` (format of app/lib/submit/honeypot.server.ts). */
export function signedStamp(formId: string, issuedMs: number, sid = "", secret = SIGNING_SECRET): string {
  const issued = String(Math.floor(issuedMs));
  const mac = createHmac("sha256", secret).update(`v2.${formId}.${sid}.${issued}`).digest("base64url");
  return `v2.${issued}.${mac}`;
}

export async function countRows(table: string): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>();
  return row?.n ?? 0;
}

export interface SinkRequest {
  /** webhook, slack or discord: the path it came in on. */
  kind?: string;
  id: string;
  mode: string;
  outcome: string;
  status: number;
  signatureValid: boolean;
  /** How many v1 signatures the webhook-signature header carried. */
  signatures: number;
}
export interface SinkState {
  mode: string;
  requests: SinkRequest[];
  unique: Array<{ id: string; payload: any; duplicates: number }>;
  /** E-mail, Slack and Discord messages as a person reads them (dev/sink-page.mjs and each kind's sink.mjs). */
  messages: Array<{ kind: string; title: string; text: string; reference: string | null }>;
}

/** The local webhook sink (dev/local-sink.mjs), driven over its loopback control port. */
export const sink = {
  url: () => inject("sinkUrl"),
  secret: () => inject("sinkSecret"),
  async setMode(mode: "normal" | "down" | "http500" | "slow" | "reset", options: { delayMs?: number; times?: number } = {}) {
    const res = await fetch(`${inject("sinkControl")}/mode`, { method: "POST", body: JSON.stringify({ mode, ...options }) });
    if (!res.ok) throw new Error(`sink refused mode ${mode}: ${await res.text()}`);
  },
  async reset() {
    await fetch(`${inject("sinkControl")}/reset`, { method: "POST" });
  },
  /** Secrets to accept beside its own until the next reset (secrets made in the console). */
  async acceptSecrets(secrets: string) {
    await fetch(`${inject("sinkControl")}/secrets`, { method: "POST", body: JSON.stringify({ secrets }) });
  },
  async state(): Promise<SinkState> {
    return (await fetch(`${inject("sinkControl")}/state`)).json();
  },
};

/** testEnv plus the contact form's webhook pointed at the sink, with the local-dev loopback switch on. */
export function sinkEnv(overrides: Partial<Record<string, string>> = {}): Env {
  return testEnv({
    CONTACT_WEBHOOK_URL: sink.url(),
    CONTACT_WEBHOOK_SECRET: sink.secret(),
    ALLOW_LOOPBACK_WEBHOOKS: "true",
    ...overrides,
  });
}
/** A JSON (or other) post to the public API from a server: no Origin header unless given. */
export function apiPost(
  formId: string,
  body: unknown,
  { headers = {}, type = "application/json" }: { headers?: Record<string, string>; type?: string } = {},
) {
  const encoded =
    type === "application/json"
      ? JSON.stringify(body)
      : type === "application/x-www-form-urlencoded"
        ? new URLSearchParams(body as Record<string, string>).toString()
        : (body as BodyInit);
  return new Request(`http://localhost/api/forms/${formId}/submissions`, {
    method: "POST",
    body: encoded,
    headers: { "content-type": type, "CF-Connecting-IP": "198.51.100.20", ...headers },
  });
}

/**
 * The app's D1 binding with a log of round trips (each batch, exec or statement run is one, listed
 * with the tables its statements write or read), so a test can hold the accept path to its budget.
 */
/** How a round trip fails, for countingDb's `fail`: before it runs (nothing committed) or after (committed, answer lost). */
export type TripFailure = { when: "before" | "after"; message: string } | null;

export function countingDb(
  db: D1Database,
  /** Decides, for each round trip's statements (SQL), whether it fails and how. */
  fail: (statements: string[]) => TripFailure = () => null,
): {
  db: D1Database;
  trips: () => number;
  log: () => string[][];
  /** Each round trip's statements as SQL, whitespace collapsed. */
  statements: () => string[][];
} {
  const log: string[][] = [];
  const sqlLog: string[][] = [];
  const real = new WeakMap<object, D1PreparedStatement>();
  const sqlOf = new WeakMap<object, string>();
  const failing = async <T>(sqls: string[], run: () => Promise<T>): Promise<T> => {
    const failure = fail(sqls);
    if (failure?.when === "before") throw new Error(failure.message);
    const result = await run();
    if (failure?.when === "after") throw new Error(failure.message);
    return result;
  };
  const table = (sql: string) => /\b(?:INTO|FROM|UPDATE)\s+(\w+)/i.exec(sql)?.[1] ?? sql.slice(0, 20);
  const wrap = (stmt: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, key) {
        if (key === "bind") return (...args: unknown[]) => wrap(target.bind(...args), sql);
        if (key === "first" || key === "all" || key === "run" || key === "raw") {
          return (...args: unknown[]) => {
            log.push([table(sql)]);
            sqlLog.push([sql]);
            return failing([sql], () => (target[key] as (...a: unknown[]) => Promise<unknown>)(...args));
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    real.set(proxy, stmt);
    sqlOf.set(proxy, sql);
    return proxy;
  };
  const proxy = new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (query: string) => wrap(target.prepare(query), query.replace(/\s+/g, " ").trim());
      if (key === "batch") {
        return (statements: D1PreparedStatement[]) => {
          log.push(statements.map((s) => table(sqlOf.get(s) ?? "")));
          sqlLog.push(statements.map((s) => sqlOf.get(s) ?? "?"));
          return failing(
            statements.map((s) => sqlOf.get(s) ?? "?"),
            () => target.batch(statements.map((s) => real.get(s) ?? s)),
          );
        };
      }
      if (key === "exec") {
        return (query: string) => {
          log.push([table(query)]);
          sqlLog.push([query]);
          return target.exec(query);
        };
      }
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: proxy, trips: () => log.length, log: () => log.map((t) => [...t]), statements: () => sqlLog.map((t) => [...t]) };
}

/**
 * Makes this isolate's form catalog warm (docs/decisions/045): a page view reads it from D1 when it is
 * cold, so a test that counts round trips on the accept path starts from a warm isolate, as a busy
 * site's requests do.
 */
export async function warmFormCatalog(appEnv: Env = testEnv()): Promise<void> {
  const response = await appFetch(new Request("http://localhost/f/contact"), appEnv);
  if (response.status !== 200) throw new Error(`warming the form catalog: GET /f/contact answered ${response.status}`);
}

/**
 * Gives this isolate its copy of the spam model (app/lib/spam/model-store.server.ts), as a busy site's
 * isolate holds it, with one accepted post that is then cleared away: the budgets a test counts after
 * this are a warm isolate's, where scoring costs no round trip.
 */
export async function warmSpamModel(): Promise<void> {
  const post = apiPost("contact", {
    name: "Warm",
    email: "warm@example.org",
    message: "Warming the spam model.",
    "cf-turnstile-response": standinToken(),
  });
  const response = await appFetch(post, testEnv({ CONTACT_WEBHOOK_URL: "" }));
  if (response.status !== 201) throw new Error(`warming the spam model: the post answered ${response.status}`);
  await clearTables();
}

/** Empties every table a submission can touch, so each test starts from nothing. */
export async function clearTables() {
  await env.DB.batch(["delivery_attempts", "deliveries", "submissions", "rate_limits"].map((t) => env.DB.prepare(`DELETE FROM ${t}`)));
}

/** A clock stopped at `ms`, for the app's `now` (drain options, maintenance context, appFetch). */
export const at = (ms: number) => () => ms;
