import { env } from "cloudflare:test";
import { adminSessionStorage, fingerprint } from "~/lib/auth/session.server";
import { hashPassword } from "~/lib/crypto/password.server";
import { testEnv } from "./helpers";

// Fixtures for the operator console tests: hashed passwords, session cookies, and submissions with
// deliveries and attempts inserted straight into D1.

export const ADMIN_PASSWORD = "correct horse battery staple";
export const VIEWER_PASSWORD = "viewer only please 42";
export const SESSION_SECRET = "test-session-secret-0123456789abcdef0123456789";

let hashes: { admin: string; viewer: string } | null = null;

export async function adminEnv(overrides: Partial<Record<string, string>> = {}): Promise<Env> {
  hashes ??= { admin: await hashPassword(ADMIN_PASSWORD), viewer: await hashPassword(VIEWER_PASSWORD) };
  return testEnv({ ADMIN_PASSWORD_HASH: hashes.admin, VIEWER_PASSWORD_HASH: hashes.viewer, SESSION_SECRET, ...overrides });
}

/** A Cookie header for a signed-in person of `role`, as the login action would issue it (a row in admin_sessions). */
export async function sessionCookie(role: "admin" | "viewer", appEnv?: Env): Promise<string> {
  const e = appEnv ?? (await adminEnv());
  const hash = role === "admin" ? e.ADMIN_PASSWORD_HASH : e.VIEWER_PASSWORD_HASH;
  const storage = adminSessionStorage(env.DB, (e.SESSION_SECRET ?? SESSION_SECRET).split(/\s+/));
  const session = await storage.getSession();
  session.set("sub", `password:${role}`);
  session.set("role", role);
  session.set("ver", await fingerprint(hash));
  return (await storage.commitSession(session)).split(";")[0];
}

/** Headers a same-origin browser POST carries (Remix compares Origin with Host itself, too). */
export const SAME_ORIGIN = { Host: "localhost", Origin: "http://localhost", "Sec-Fetch-Site": "same-origin" };

export function adminPost(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return new Request(`http://localhost${path}`, {
    method: "POST",
    body: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", "CF-Connecting-IP": "198.51.100.4", ...SAME_ORIGIN, ...headers },
  });
}

/** A GET as the browser sends it from the console's own pages (Sec-Fetch-Site: same-origin). */
export function adminGet(path: string, cookie?: string, headers: Record<string, string> = {}) {
  return new Request(`http://localhost${path}`, {
    headers: { "Sec-Fetch-Site": "same-origin", ...(cookie ? { Cookie: cookie } : {}), ...headers },
  });
}

export interface SeedAttempt {
  httpStatus: number | null;
  error?: string | null;
  latencyMs?: number;
  excerpt?: string | null;
}

export interface SeedDelivery {
  destination?: string;
  status: "pending" | "delivered" | "dead";
  lastError?: string | null;
  attempts?: SeedAttempt[];
}

export interface SeedSubmission {
  id?: string;
  formId?: string;
  fields: Record<string, unknown>;
  receivedAt?: string;
  quarantineReason?: string;
  deliveries?: SeedDelivery[];
  /** A console "Send a test" (submissions.test = 1). */
  test?: boolean;
}

/** Inserts one submission with its deliveries and attempts; returns its id. */
export async function seedSubmission(s: SeedSubmission): Promise<string> {
  const id = s.id ?? crypto.randomUUID();
  const receivedAt = s.receivedAt ?? new Date().toISOString();
  const statements = [
    env.DB.prepare(
      `INSERT INTO submissions (id, form_id, fields, received_at, status, quarantine_reason, verify_hostname, verify_action, verify_challenge_ts, test)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'forms.example.org', ?2, ?4, ?7)`,
    ).bind(
      id,
      s.formId ?? "contact",
      JSON.stringify(s.fields),
      receivedAt,
      s.quarantineReason ? "quarantined" : "accepted",
      s.quarantineReason ?? null,
      s.test ? 1 : 0,
    ),
  ];
  (s.deliveries ?? []).forEach((d, i) => {
    const deliveryId = `msg_${id.slice(0, 8)}_${i}`;
    statements.push(
      env.DB.prepare(
        `INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, last_error, created_at, delivered_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
      ).bind(
        deliveryId,
        id,
        s.formId ?? "contact",
        d.destination ?? `webhook${i || ""}`,
        d.status,
        d.attempts?.length ?? 0,
        Date.now() + 60_000,
        d.lastError ?? null,
        receivedAt,
        d.status === "delivered" ? receivedAt : null,
      ),
    );
    for (const a of d.attempts ?? []) {
      statements.push(
        env.DB.prepare(
          `INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, error, latency_ms, response_excerpt) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
        ).bind(deliveryId, receivedAt, a.httpStatus, a.error ?? null, a.latencyMs ?? 42, a.excerpt ?? null),
      );
    }
  });
  await env.DB.batch(statements);
  return id;
}

export async function clearAdminTables() {
  await env.DB.batch(
    ["delivery_attempts", "deliveries", "submissions", "audit_log", "rate_limits", "admin_sessions", "export_jobs"].map((t) =>
      env.DB.prepare(`DELETE FROM ${t}`),
    ),
  );
}
