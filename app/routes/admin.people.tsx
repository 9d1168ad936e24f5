import { z } from "zod";
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { ScrollTable } from "~/components/admin/scroll-table";
import { requireAdminAction, requireUser } from "~/lib/auth/admin-user.server";
import { consoleRoute } from "~/lib/console/route.server";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/console/page";
import { readAdminForm, TokenSchema } from "~/lib/console/input.server";
import { ERRORS } from "~/lib/http/errors";
import { refusal } from "~/lib/http/responses.server";
import { invitePerson, inviteContextOf, NewPersonSchema } from "~/lib/people/invitations.server";
import { changeRole, listPeopleViews, removePerson } from "~/lib/people/people.server";

// People (docs/people.md): invite by address with a role, change a role, remove; admins only.
export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("People", "Who may sign in to this console, with which role.");

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  const user = await requireUser(request, context);
  if (user.role !== "admin") throw refusal("admin_forbidden");
  return {
    people: await listPeopleViews(context.cloudflare.env.DB),
    me: user.personId ?? null,
    canEmail: context.mailer !== null && context.settings.emailFrom !== null,
  };
});

const RoleSchema = z.enum(["admin", "viewer"]);
const PostSchema = z.discriminatedUnion("intent", [
  NewPersonSchema.extend({ intent: z.literal("invite") }),
  z.object({ intent: z.literal("role"), id: TokenSchema, role: RoleSchema }),
  z.object({ intent: z.literal("remove"), id: TokenSchema }),
]);

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  const user = await requireAdminAction(request, context);
  const post = await readAdminForm(request, PostSchema);
  const nowMs = context.now();
  if (post.intent === "invite") {
    const made = await invitePerson(inviteContextOf(context, user, request, nowMs), post);
    if (!made.ok) return json({ ok: false, message: ERRORS[made.code].message, inviteUrl: null }, { status: ERRORS[made.code].status });
    const sent = made.emailed ? ` It was sent to ${post.email};` : "";
    return json({
      ok: true,
      message: `${post.email} is invited as ${post.role}.${sent} copy the link below for them: it works once, until ${formatUtc(made.expiresAt)}.`,
      inviteUrl: made.inviteUrl,
    });
  }
  const ctx = { db: context.cloudflare.env.DB, user, request, nowMs };
  const done = post.intent === "role" ? await changeRole(ctx, post.id, post.role) : await removePerson(ctx, post.id);
  if (!done.ok) return json({ ok: false, message: ERRORS[done.code].message, inviteUrl: null }, { status: ERRORS[done.code].status });
  const message = post.intent === "role" ? `The role is now ${post.role}.` : "Removed: their sessions and API tokens ended at once.";
  return json({ ok: true, message, inviteUrl: null });
});

export default function People() {
  const { people, me, canEmail } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <h1>People</h1>
      <p>
        Each person signs in with their own e-mail address and password or passkey, and the audit log names them. An admin reads and
        changes; a viewer reads.{" "}
        {canEmail ? "Invitations are sent by e-mail, and shown here to copy." : "Copy each invitation link to the person."}
      </p>
      <div role="status" aria-live="polite">
        {result ? <p className={result.ok ? "notice ok" : "notice error"}>{result.message}</p> : null}
        {result?.inviteUrl ? (
          <p className="notice ok">
            Invitation link: <code className="secret">{result.inviteUrl}</code>
          </p>
        ) : null}
      </div>
      {people.length > 0 ? (
        <ScrollTable label="People">
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Role</th>
              <th scope="col">Invited</th>
              <th scope="col">Last sign-in</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {people.map((p) => (
              <tr key={p.id}>
                <th scope="row">
                  {p.email} {p.id === me ? <span className="small">(you)</span> : null}
                </th>
                <td data-label="Role">
                  {p.state === "removed" ? (
                    p.role
                  ) : (
                    <Form method="post" className="inline">
                      <input type="hidden" name="intent" value="role" />
                      <input type="hidden" name="id" value={p.id} />
                      <label>
                        <span className="visually-hidden">Role of {p.email}</span>
                        <select name="role" defaultValue={p.role}>
                          <option value="admin">admin</option>
                          <option value="viewer">viewer</option>
                        </select>
                      </label>
                      <button type="submit" className="secondary" aria-label={`Change the role of ${p.email}`}>
                        Change
                      </button>
                    </Form>
                  )}
                </td>
                <td data-label="Invited">{`${formatUtc(p.invitedAt)} by ${p.invitedBy}`}</td>
                <td data-label="Last sign-in">{p.lastSignInAt ? formatUtc(p.lastSignInAt) : "never"}</td>
                <td data-label="State">
                  {p.state === "removed" ? (
                    `Removed ${formatUtc(p.removedAt)}`
                  ) : (
                    <Form method="post">
                      <input type="hidden" name="id" value={p.id} />
                      {p.state === "invited" ? "Invited " : "Active "}
                      <button type="submit" name="intent" value="remove" className="secondary" aria-label={`Remove ${p.email}`}>
                        {p.state === "invited" ? "Withdraw" : "Remove"}
                      </button>
                    </Form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      ) : (
        <p>Nobody yet: everyone signs in with the shared password. Invite each person, yourself first, so the audit log names them.</p>
      )}
      <h2 id="invite">Invite someone</h2>
      <Form method="post" className="filters" aria-labelledby="invite">
        <input type="hidden" name="intent" value="invite" />
        <label className="wide">
          E-mail address
          <input name="email" type="email" required maxLength={254} autoComplete="off" />
        </label>
        <label>
          Role
          <select name="role" defaultValue="viewer">
            <option value="viewer">viewer (reads)</option>
            <option value="admin">admin (reads and changes)</option>
          </select>
        </label>
        <button type="submit">Invite</button>
      </Form>
    </>
  );
}
