import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, NavLink, Outlet, useLoaderData } from "@remix-run/react";
import { requireUser } from "~/lib/auth/admin-user.server";
import { adminHeaders } from "~/lib/console/page";
import { consoleRoute } from "~/lib/console/route.server";

// The console's frame. This loader does not guard the pages inside it (Remix runs them in
// parallel): each child loader and action calls requireUser / requireAdminAction itself.
export const headers = adminHeaders;

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  const user = await requireUser(request, context);
  return { user: { id: user.id, role: user.role } };
});

/** "Signed in as admin" for the shared passwords; a person's own name (Access) with their role. */
function signedInAs(user: { id: string; role: string }): string {
  return user.id.startsWith("password:") ? `Signed in as ${user.role}` : `Signed in as ${user.id.replace(/^access:/, "")} (${user.role})`;
}

export default function AdminLayout() {
  const { user } = useLoaderData<typeof loader>();
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
        <span className="who">{signedInAs(user)}</span>
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
      <Outlet />
    </div>
  );
}
