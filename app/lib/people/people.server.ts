import type { AdminUser } from "~/lib/auth/admin-user.server";
import type { ErrorCode } from "~/lib/http/errors";
import { auditStatement } from "~/lib/storage/audit-log.server";
import {
  changeRoleStatement,
  countJoinedAdmins,
  findLivePerson,
  listPeople,
  revokePersonStatements,
  type PersonRow,
} from "~/lib/storage/people.server";

// The console's and the admin API's people (docs/people.md): listed, a role changed, removed. Removal
// ends their sessions, API tokens and open invitation in the same batch (docs/decisions/129).

export interface PeopleContext {
  db: D1Database;
  user: AdminUser;
  request: Request;
  nowMs: number;
}

/** A person as the API answers and the console shows them. */
export interface PersonView {
  id: string;
  email: string;
  role: "admin" | "viewer";
  state: "invited" | "active" | "removed";
  invitedAt: string;
  invitedBy: string;
  joinedAt: string | null;
  lastSignInAt: string | null;
  removedAt: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function viewOfPerson(row: PersonRow): PersonView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    state: row.revoked_at !== null ? "removed" : row.joined_at !== null ? "active" : "invited",
    invitedAt: new Date(row.created_at).toISOString(),
    invitedBy: row.created_by,
    joinedAt: iso(row.joined_at),
    lastSignInAt: iso(row.last_sign_in_at),
    removedAt: iso(row.revoked_at),
  };
}

/** Everyone, live first. D1 errors throw. */
export async function listPeopleViews(db: D1Database): Promise<PersonView[]> {
  return (await listPeople(db)).map(viewOfPerson);
}

export type PersonChange = { ok: true } | { ok: false; code: ErrorCode };

/** Why a change to `id` was refused: no such live person, or the actor is the last admin. */
async function refusalFor(ctx: PeopleContext, id: string): Promise<PersonChange> {
  const person = await findLivePerson(ctx.db, id);
  if (!person) return { ok: false, code: "person_not_found" };
  if (person.id === ctx.user.personId && person.role === "admin" && (await countJoinedAdmins(ctx.db)) <= 1) {
    return { ok: false, code: "person_last_admin" };
  }
  // Nothing changed because nothing needed to (the same role again).
  return { ok: true };
}

/** Gives a live person `role`; the last admin cannot demote themselves. D1 errors throw. */
export async function changeRole(ctx: PeopleContext, id: string, role: "admin" | "viewer"): Promise<PersonChange> {
  const [changed] = await ctx.db.batch([
    changeRoleStatement(ctx.db, { id, role, actorId: ctx.user.personId ?? null }),
    auditStatement(ctx.db, { ...ctx, action: "person.role", ifChanged: true, target: id, detail: { role } }),
  ]);
  return changed.results.length > 0 ? { ok: true } : refusalFor(ctx, id);
}

/** Removes a person (or withdraws their invitation) and ends their sessions and tokens at once. D1 errors throw. */
export async function removePerson(ctx: PeopleContext, id: string): Promise<PersonChange> {
  const { person, after } = revokePersonStatements(ctx.db, { id, actorId: ctx.user.personId ?? null, nowMs: ctx.nowMs });
  const [removed] = await ctx.db.batch([
    person,
    auditStatement(ctx.db, { ...ctx, action: "person.remove", ifChanged: true, target: id }),
    ...after,
  ]);
  if (removed.results.length > 0) return { ok: true };
  const refused = await refusalFor(ctx, id);
  return refused.ok ? { ok: false, code: "person_not_found" } : refused;
}
