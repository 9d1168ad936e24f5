import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, Link, NavLink, Outlet, useLoaderData } from "@remix-run/react";
import { requireUser } from "~/lib/auth/admin-user.server";
import { adminHeaders } from "~/lib/console/page";
import { consoleRoute } from "~/lib/console/route.server";

// The console's frame. This loader does not guard the pages inside it (Remix runs them in
// parallel): each child loader and action calls requireUser / requireAdminAction itself.
export const headers = adminHeaders;

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  const user = await requireUser(request, context);
  // The words are made here, so the console's every page ships none of them (ADR 117's budget).
  const shared = user.id === "password:admin";
  return {
    user: { role: user.role, person: Boolean(user.personId), who: signedInAs(user) },
    suggestion: shared
      ? {
          before: "You are signed in with the shared password. ",
          link: "Invite yourself under People",
          after: " and sign in as yourself, so the audit log names you; docs/people.md says how to retire the shared password.",
        }
      : null,
  };
});

/** "Signed in as admin" for the shared passwords; a person's own address (their account, Access) with their role. */
function signedInAs(user: { id: string; role: string }): string {
  return user.id.startsWith("password:")
    ? `Signed in as ${user.role}`
    : `Signed in as ${user.id.replace(/^(access|person):/, "")} (${user.role})`;
}

export default function AdminLayout() {
  const { user, suggestion } = useLoaderData<typeof loader>();
  return (
    <div className="admin">
      <nav aria-label="Operator console">
        <NavLink to="/admin" end>
          Dashboard
        </NavLink>
        <NavLink to="/admin/submissions">Submissions</NavLink>
        <NavLink to="/admin/forms">Forms</NavLink>
        <NavLink to="/admin/erase">Erase by e-mail</NavLink>
        <NavLink to="/admin/audit">Audit log</NavLink>
        <NavLink to="/admin/tokens">API tokens</NavLink>
        {user.role === "admin" ? <NavLink to="/admin/people">People</NavLink> : null}
        {user.person ? <NavLink to="/admin/passkeys">Passkeys</NavLink> : null}
        <span className="who">{user.who}</span>
        <Form method="post" action="/admin/logout" reloadDocument>
          <button type="submit" className="secondary">
            Sign out
          </button>
          {user.role === "admin" ? (
            <button type="submit" name="intent" value="everywhere" className="secondary">
              Sign out everywhere
            </button>
          ) : null}
        </Form>
      </nav>
      {suggestion ? (
        <p className="notice">
          {suggestion.before}
          <Link to="/admin/people">{suggestion.link}</Link>
          {suggestion.after}
        </p>
      ) : null}
      <Outlet />
    </div>
  );
}
