import { z } from "zod";
import type { AdminUser } from "~/lib/auth/admin-user.server";
import { encodeBase64Url } from "~/lib/crypto/base64";
import { encodeHex, sha256 } from "~/lib/crypto/digest";
import { isEmailAddress } from "~/lib/destinations/checks";
import type { ErrorCode } from "~/lib/http/errors";
import type { Mailer } from "~/lib/sending/mailer.server";
import { sendInvitation } from "~/lib/people/invitation-mail.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { findLivePersonByEmail, insertInvitationStatement, insertPersonStatement } from "~/lib/storage/people.server";

// Inviting a person (docs/decisions/129): a one-time link that expires in a day. Only a SHA-256 of its
// token is kept (as for API tokens, ADR 043), so the link is shown once, to copy, and sent by e-mail
// where the deployment can send it.

export const INVITATION_TTL_MS = 24 * 60 * 60 * 1000;
const TOKEN_PREFIX = "gpinv_";

/** What the admin API and the console take: one address and a role. */
export const NewPersonSchema = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254)
    .refine((value) => isEmailAddress(value)),
  role: z.enum(["admin", "viewer"]),
});
export type NewPerson = z.infer<typeof NewPersonSchema>;

/** The hash an invitation token is kept and looked up by; null for anything that is not one. */
export async function invitationHash(token: string): Promise<string | null> {
  if (!/^gpinv_[A-Za-z0-9_-]{43}$/.test(token)) return null;
  return encodeHex(await sha256(token));
}

export interface InviteContext {
  db: D1Database;
  user: AdminUser;
  request: Request;
  nowMs: number;
  /** PUBLIC_URL, else the request's origin: where the link points. */
  publicUrl: string | null;
  /** EMAIL_FROM and the mailer; the invitation is sent only with both. */
  emailFrom: string | null;
  mailer: Mailer | null;
}

export type InviteResult =
  { ok: true; id: string; inviteUrl: string; expiresAt: string; emailed: boolean } | { ok: false; code: ErrorCode };

/** Invites `person`: their row and the link, with the audit line, in one batch. D1 errors throw; a failed e-mail is `emailed: false`. */
export async function invitePerson(ctx: InviteContext, person: NewPerson): Promise<InviteResult> {
  const id = encodeBase64Url(crypto.getRandomValues(new Uint8Array(9)));
  const token = TOKEN_PREFIX + encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const expiresMs = ctx.nowMs + INVITATION_TTL_MS;
  const [made] = await ctx.db.batch([
    insertPersonStatement(ctx.db, { id, ...person, actor: ctx.user.id, nowMs: ctx.nowMs }),
    insertInvitationStatement(ctx.db, { personId: id, hash: encodeHex(await sha256(token)), nowMs: ctx.nowMs, expiresMs }),
    auditStatement(ctx.db, {
      user: ctx.user,
      request: ctx.request,
      action: "person.invite",
      ifChanged: true,
      target: id,
      detail: { email: person.email, role: person.role },
      nowMs: ctx.nowMs,
    }),
  ]);
  if (made.results.length === 0) return { ok: false, code: await whyNotMade(ctx.db, person.email) };
  const inviteUrl = `${ctx.publicUrl ?? new URL(ctx.request.url).origin}/admin/join/${token}`;
  const emailed =
    ctx.mailer !== null && ctx.emailFrom !== null
      ? await sendInvitation(ctx.mailer, { from: ctx.emailFrom, to: person.email, inviteUrl, role: person.role, inviter: ctx.user.id })
      : false;
  return { ok: true, id, inviteUrl, expiresAt: new Date(expiresMs).toISOString(), emailed };
}

/** The row was not made: the address is taken, or MAX_PEOPLE are live. */
async function whyNotMade(db: D1Database, email: string): Promise<ErrorCode> {
  return (await findLivePersonByEmail(db, email)) ? "person_exists" : "person_limit";
}

/** The invitation's context from a route's load context and the admin asking. */
export function inviteContextOf(
  context: {
    cloudflare: { env: { DB: D1Database } };
    settings: { publicUrl: string | null; emailFrom: string | null };
    mailer: Mailer | null;
  },
  user: AdminUser,
  request: Request,
  nowMs: number,
): InviteContext {
  const { publicUrl, emailFrom } = context.settings;
  return { db: context.cloudflare.env.DB, user, request, nowMs, publicUrl, emailFrom, mailer: context.mailer };
}
