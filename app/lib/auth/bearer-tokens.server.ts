import type { AdminUser } from "~/lib/auth/admin-user.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import type { Role } from "~/lib/auth/session.server";
import { encodeBase64Url, equalBytes } from "~/lib/crypto/base64";
import { encodeHex, sha256 } from "~/lib/crypto/digest";
import type { ErrorCode } from "~/lib/http/errors";
import type { AdminConfig } from "~/lib/settings/admin.server";
import { insertTokenStatement, revokeTokenStatement, useToken } from "~/lib/storage/api-tokens.server";

// Bearer tokens for the admin API (ADR 043): 256 random bits, shown once; D1 keeps a SHA-256 (enough for that
// much entropy). ADMIN_API_TOKEN is compared by hash, so in constant time.

export const TOKEN_PREFIX = "gpat_";
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]{20,200}=*) *$/;

/** The token in an Authorization header: a string, null without the header, "malformed" for anything else. */
export function bearerToken(request: Request): string | null | "malformed" {
  const header = request.headers.get("Authorization");
  if (header === null) return null;
  return BEARER.exec(header)?.[1] ?? "malformed";
}

/** The API user a bearer token stands for, or null. D1 errors throw. */
export async function userOfToken(db: D1Database, config: AdminConfig, token: string, nowMs: number): Promise<AdminUser | null> {
  const digest = await sha256(token);
  if (config.apiToken && equalBytes(digest, await sha256(config.apiToken))) {
    return { id: "token:ADMIN_API_TOKEN", role: "admin", via: "token" };
  }
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const row = await useToken(db, encodeHex(digest), nowMs);
  return row ? { id: `token:${row.id}`, role: row.role, via: "token" } : null;
}

export type TokenResult = { ok: true; id: string; token: string } | { ok: false; code: ErrorCode };

/** Makes a token with `role`; the token itself is returned once and never stored. D1 errors throw. */
export async function createApiToken(
  ctx: { db: D1Database; user: AdminUser; request: Request; nowMs: number },
  name: string,
  role: Role,
): Promise<TokenResult> {
  const token = TOKEN_PREFIX + encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const id = encodeBase64Url(crypto.getRandomValues(new Uint8Array(6)));
  const [made] = await ctx.db.batch([
    insertTokenStatement(ctx.db, { id, name, role, hash: encodeHex(await sha256(token)), actor: ctx.user.id, nowMs: ctx.nowMs }),
    auditStatement(ctx.db, {
      user: ctx.user,
      request: ctx.request,
      action: "token.create",
      ifChanged: true,
      target: id,
      detail: { name, role },
      nowMs: ctx.nowMs,
    }),
  ]);
  return made.results.length > 0 ? { ok: true, id, token } : { ok: false, code: "admin_token_limit" };
}

/** Revokes a token at once: its next request answers 401. D1 errors throw. */
export async function revokeApiToken(
  ctx: { db: D1Database; user: AdminUser; request: Request; nowMs: number },
  id: string,
): Promise<boolean> {
  const [revoked] = await ctx.db.batch([
    revokeTokenStatement(ctx.db, id, ctx.nowMs),
    auditStatement(ctx.db, { user: ctx.user, request: ctx.request, action: "token.revoke", ifChanged: true, target: id, nowMs: ctx.nowMs }),
  ]);
  return revoked.results.length > 0;
}
