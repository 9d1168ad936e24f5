import { redirect } from "@remix-run/cloudflare";
import { z } from "zod";
import { verifyAccessJwt } from "~/lib/auth/access-jwt.server";
import type { AdminConfig } from "~/lib/settings/admin.server";
import type { TurnstileSettings } from "~/lib/settings/turnstile.server";
import type { OncePerRequest } from "~/lib/platform/once-per-request";
import { refusal } from "~/lib/http/responses.server";
import { adminSessionStorage, fingerprint, singleSessionCookieHeader, type Role } from "~/lib/auth/session.server";

// Every admin loader and action calls one of these itself: Remix runs a layout's loader beside its children's, not before.

export interface AdminUser {
  id: string;
  role: Role;
  via: "password" | "access" | "token";
  /** A password sign-in's session id (every password admin shares one `id`): never stored or shown as is. */
  sessionId?: string;
}

export interface AdminContext {
  cloudflare: { env: { DB: D1Database } };
  settings: { admin: AdminConfig; turnstile: TurnstileSettings };
  once?: OncePerRequest;
}

export type Audience = "document" | "data";

/** The signed-in person, or null. D1 errors throw; every other doubt is null. */
export function findUser(request: Request, context: AdminContext): Promise<AdminUser | null> {
  // Once per request for reads only: an action may sign in or out before the loaders after it ask.
  if (context.once && (request.method === "GET" || request.method === "HEAD"))
    return context.once("admin-user", () => lookUpUser(request, context));
  return lookUpUser(request, context);
}

async function lookUpUser(request: Request, context: AdminContext): Promise<AdminUser | null> {
  const config = context.settings.admin;
  const assertion = request.headers.get("Cf-Access-Jwt-Assertion");
  if (config.access && assertion) {
    const verdict = await verifyAccessJwt({ token: assertion, ...config.access });
    if (verdict.ok) return { id: `access:${verdict.email}`, role: "admin", via: "access" };
  }
  if (config.sessionSecrets.length === 0) return null;
  const cookieHeader = singleSessionCookieHeader(request);
  if (!cookieHeader) return null;
  const session = await adminSessionStorage(context.cloudflare.env.DB, config.sessionSecrets).getSession(cookieHeader);
  const sub = session.get("sub");
  const role = session.get("role");
  const ver = session.get("ver");
  if (!sub || !role || !ver) return null;
  const hash = role === "admin" ? config.adminHash : config.viewerHash;
  if (!hash || ver !== (await fingerprint(hash))) return null;
  return { id: sub, role, via: "password", sessionId: session.id };
}

// Printable ASCII only: a control character or a space in a Location header is a TypeError (a 500).
const NextSchema = z
  .string()
  .max(2000)
  .regex(/^\/[\x21-\x7e]*$/);
// Checked on the path the browser will request, resolved as the browser does; what is left must be under /admin.
const NEXT_BASE = "http://next.invalid";

/** A safe place to return to after sign-in: only printable paths inside /admin, normalised; else "/admin". */
export function safeNext(next: string | null | undefined): string {
  const parsed = NextSchema.safeParse(next);
  if (!parsed.success) return "/admin";
  let url: URL;
  try {
    url = new URL(parsed.data, NEXT_BASE);
  } catch {
    return "/admin";
  }
  const path = url.pathname;
  if (url.origin !== NEXT_BASE || !/^\/admin(?:\/|$)/.test(path) || path.includes("//") || path.includes("%")) return "/admin";
  return `${path}${url.search}`;
}

/** The signed-in user, or throws a redirect to /admin/login (documents) or a 401 refusal (data). */
export async function requireUser(request: Request, context: AdminContext, audience: Audience = "document"): Promise<AdminUser> {
  const user = await findUser(request, context);
  if (user) return user;
  if (audience === "document" && request.method === "GET") {
    const url = new URL(request.url);
    throw redirect(`/admin/login?next=${encodeURIComponent(safeNext(url.pathname + url.search))}`, 303);
  }
  throw refusal("admin_unauthenticated");
}

/** Guards a state-changing action: a POST from this origin (so no other page can make a signed-in browser act) by an admin. Throws a refusal otherwise. */
export async function requireAdminAction(request: Request, context: AdminContext): Promise<AdminUser> {
  if (request.method !== "POST") throw refusal("method_not_allowed");
  requireSameOrigin(request);
  const user = await requireUser(request, context, "data");
  if (user.role !== "admin") throw refusal("admin_forbidden");
  return user;
}

/** Throws admin_cross_origin unless the browser says the request came from this origin. */
export function requireSameOrigin(request: Request): void {
  const site = request.headers.get("Sec-Fetch-Site");
  const origin = request.headers.get("Origin");
  if (site !== null && site !== "same-origin") throw refusal("admin_cross_origin");
  if (origin === null ? site === null : origin !== new URL(request.url).origin) throw refusal("admin_cross_origin");
}

/** Guards a GET with an effect (an export is audited): only `Sec-Fetch-Site: same-origin`, so no link, image or typed URL sets it off. Throws admin_cross_origin otherwise. */
export function requireSameOriginRead(request: Request): void {
  if (request.headers.get("Sec-Fetch-Site") !== "same-origin") throw refusal("admin_cross_origin");
}
