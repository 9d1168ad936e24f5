import { bearerToken, userOfToken } from "~/lib/auth/bearer-tokens.server";
import { findUser, requireSameOrigin, requireSameOriginRead, type AdminContext, type AdminUser } from "~/lib/auth/admin-user.server";
import { sessionCookieHeaders } from "~/lib/auth/session.server";
import type { ErrorCode } from "~/lib/http/errors";
import { readMessageUpTo } from "~/lib/http/read-stream.server";
import { problemJson } from "~/lib/http/responses.server";

// Who may use the admin API (docs/api.md): a bearer token, or the console's session cookie, which being ambient
// must come from this origin. Every refusal is problem+json from the error catalogue.

/** The largest JSON body the API reads (a definition of MAX_FIELDS fields with long option lists); admin_body_too_large's message names it. */
export const MAX_JSON_BYTES = 256 * 1024;

/** A problem+json refusal to throw (with extension members, if any); 401s say how to authenticate. */
export function apiRefusal(code: ErrorCode, members?: Record<string, unknown>): Response {
  const headers = new Headers();
  if (code === "admin_unauthenticated") headers.set("WWW-Authenticate", 'Bearer realm="gatepost-admin"');
  return problemJson(code, headers, undefined, members);
}

/** Turns a thrown refusal of the console's own helpers (a JSON Response) into problem+json. */
export async function asProblem(error: unknown): Promise<Response> {
  if (error instanceof Response) {
    const code = error.headers.get("Gatepost-Error-Code");
    if (code && error.headers.get("content-type")?.startsWith("application/problem+json")) return error;
    if (code) return apiRefusal(code as ErrorCode);
  }
  throw error;
}

/** The API's user, able to `need` read or write. Throws problem+json: 401 without a token or session, 403 for a viewer's write or a cross-site cookie. */
export async function requireApiUser(
  request: Request,
  context: AdminContext,
  need: "read" | "write",
  nowMs = Date.now(),
): Promise<AdminUser> {
  const token = bearerToken(request);
  let user: AdminUser | null = null;
  if (token === "malformed") throw apiRefusal("admin_unauthenticated");
  if (token !== null) {
    user = await userOfToken(context.cloudflare.env.DB, context.settings.admin, token, nowMs);
  } else if (sessionCookieHeaders(request).length > 0) {
    try {
      if (request.method === "GET" || request.method === "HEAD") requireSameOriginRead(request);
      else requireSameOrigin(request);
    } catch {
      throw apiRefusal("admin_cross_origin");
    }
    user = await findUser(request, context);
  }
  if (!user) throw apiRefusal("admin_unauthenticated");
  if (need === "write" && user.role !== "admin") throw apiRefusal("admin_forbidden");
  return user;
}

/** 405 for a method the route does not take, after authenticating for `need` (401, 403 first). */
export async function refuseMethod(request: Request, context: AdminContext, need: "read" | "write" = "read"): Promise<Response> {
  try {
    await requireApiUser(request, context, need);
    throw apiRefusal("method_not_allowed");
  } catch (error) {
    return asProblem(error);
  }
}

/** The JSON body (at most MAX_JSON_BYTES; `optional`: empty is `{}`), or throws a 4xx problem+json. */
export async function readJsonBody(request: Request, { optional = false }: { optional?: boolean } = {}): Promise<unknown> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const read = await readMessageUpTo(request, MAX_JSON_BYTES);
  if (!read) throw apiRefusal("malformed_body");
  if (read.overflow) throw apiRefusal("admin_body_too_large");
  if (optional && read.bytes.length === 0) return {};
  if (type !== "application/json") throw apiRefusal("unsupported_media_type");
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(read.bytes)) as unknown;
  } catch {
    throw apiRefusal("malformed_body");
  }
}
