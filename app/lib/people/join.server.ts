import { userOfPerson, type AdminContext, type AdminUser } from "~/lib/auth/admin-user.server";
import { personSession, startSession } from "~/lib/auth/sign-in.server";
import { hashPassword } from "~/lib/crypto/password.server";
import { invitationHash } from "~/lib/people/invitations.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { acceptInvitationStatements, findInvited, personOfRows, type PersonRow } from "~/lib/storage/people.server";

// Following an invitation (docs/people.md): the link's person chooses a password (hashed as the owner
// password is), the link is spent, and they are signed in, all before the page answers.

export const MIN_PASSWORD_LENGTH = 12;

/** The invited person a usable link stands for, or null (used, expired, withdrawn, or never one). D1 errors throw. */
export async function findInvitation(db: D1Database, token: string, nowMs: number): Promise<PersonRow | null> {
  const hash = await invitationHash(token);
  return hash ? findInvited(db, hash, nowMs) : null;
}

export type JoinResult =
  | { ok: true; user: AdminUser; cookie: string }
  | { ok: false; code: "invitation_invalid" | "person_password_weak" | "admin_closed" | "storage_unavailable" };

/** Spends the link, sets the password and signs the person in. D1 failures of the session: storage_unavailable; others throw. */
export async function joinWithPassword(
  request: Request,
  context: AdminContext,
  join: { token: string; password: string; confirm: string; nowMs: number },
): Promise<JoinResult> {
  const secrets = context.settings.admin.sessionSecrets;
  if (secrets.length === 0) return { ok: false, code: "admin_closed" };
  const hash = await invitationHash(join.token);
  if (!hash) return { ok: false, code: "invitation_invalid" };
  const db = context.cloudflare.env.DB;
  const invited = await findInvited(db, hash, join.nowMs);
  if (!invited) return { ok: false, code: "invitation_invalid" };
  if (join.password.length < MIN_PASSWORD_LENGTH || join.password.length > 1024 || join.password !== join.confirm) {
    return { ok: false, code: "person_password_weak" };
  }
  const [accepted, spent] = acceptInvitationStatements(db, { hash, passwordHash: await hashPassword(join.password), nowMs: join.nowMs });
  const audit = auditStatement(db, {
    user: userOfPerson(invited, "password"),
    request,
    action: "person.join",
    ifChanged: true,
    target: invited.id,
    nowMs: join.nowMs,
  });
  // The link is spent in the same transaction, so two tabs cannot both use it.
  const [done] = await db.batch([accepted, audit, spent]);
  const person = personOfRows(done.results);
  if (!person) return { ok: false, code: "invitation_invalid" };
  const started = await startSession(db, secrets, await personSession(person, person.role, "password"));
  if (!started.ok) return started;
  return { ok: true, user: userOfPerson(person, "password"), cookie: started.cookie };
}
