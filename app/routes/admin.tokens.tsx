import { z } from "zod";
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { ScrollTable } from "~/components/admin/scroll-table";
import { createApiToken, revokeApiToken } from "~/lib/auth/bearer-tokens.server";
import { requireAdminAction, requireUser } from "~/lib/auth/admin-user.server";
import { consoleRoute } from "~/lib/console/route.server";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/console/page";
import { readAdminForm, TokenSchema } from "~/lib/console/input.server";
import { ERRORS } from "~/lib/http/errors";
import { listTokens } from "~/lib/storage/api-tokens.server";
import type { loader as layoutLoader } from "~/routes/admin";

// Tokens for the admin API (docs/api.md): each with a role, shown once when made, revoked here.
export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("API tokens", "Tokens for scripts that use the admin API.");

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  await requireUser(request, context);
  const tokens = await listTokens(context.cloudflare.env.DB);
  return {
    envToken: context.settings.admin.apiToken !== null,
    tokens: tokens.map((t) => ({
      id: t.id,
      name: t.name,
      role: t.role,
      createdAt: new Date(t.created_at).toISOString(),
      createdBy: t.created_by,
      lastUsedAt: t.last_used_at === null ? null : new Date(t.last_used_at).toISOString(),
      revokedAt: t.revoked_at === null ? null : new Date(t.revoked_at).toISOString(),
    })),
  };
});

const PostSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("create"), name: z.string().trim().min(1).max(80), role: z.enum(["admin", "viewer"]) }),
  z.object({ intent: z.literal("revoke"), id: TokenSchema }),
]);

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  const user = await requireAdminAction(request, context);
  const post = await readAdminForm(request, PostSchema);
  const ctx = { db: context.cloudflare.env.DB, user, request, nowMs: Date.now() };
  if (post.intent === "revoke") {
    const revoked = await revokeApiToken(ctx, post.id);
    return json({
      ok: revoked,
      message: revoked ? "The token was revoked: it opens nothing from now on." : "There is no such live token.",
      token: null,
    });
  }
  const made = await createApiToken(ctx, post.name, post.role);
  if (!made.ok) return json({ ok: false, message: ERRORS[made.code].message, token: null }, { status: 409 });
  return json({
    ok: true,
    message: `Token “${post.name}” made, with the ${post.role} role. Copy it now: it is not shown again.`,
    token: made.token,
  });
});

export default function Tokens() {
  const { tokens, envToken } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const admin = useRouteLoaderData<typeof layoutLoader>("routes/admin")?.user.role === "admin";
  return (
    <>
      <h1>API tokens</h1>
      <p>
        Scripts use the admin API (docs/api.md) with <code>Authorization: Bearer &lt;token&gt;</code>. A viewer&apos;s token reads; an
        admin&apos;s also changes forms. Only a hash of each token is kept.
        {envToken ? " The admin token set in the environment is one more." : ""}
      </p>
      <div role="status" aria-live="polite">
        {result ? <p className={result.ok ? "notice ok" : "notice error"}>{result.message}</p> : null}
        {result?.token ? (
          <p className="notice ok">
            Token: <code className="secret">{result.token}</code>
          </p>
        ) : null}
      </div>
      {tokens.length > 0 ? (
        <ScrollTable label="API tokens">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Made</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id}>
                <th scope="row">
                  {t.name} <span className="small">{t.id}</span>
                </th>
                <td data-label="Role">{t.role}</td>
                <td data-label="Made">{`${formatUtc(t.createdAt)} by ${t.createdBy}`}</td>
                <td data-label="Last used">{t.lastUsedAt ? formatUtc(t.lastUsedAt) : "never"}</td>
                <td data-label="State">
                  {t.revokedAt ? (
                    `Revoked ${formatUtc(t.revokedAt)}`
                  ) : admin ? (
                    <Form method="post">
                      <input type="hidden" name="id" value={t.id} />
                      <button type="submit" name="intent" value="revoke" className="secondary" aria-label={`Revoke ${t.name}`}>
                        Revoke
                      </button>
                    </Form>
                  ) : (
                    "Live"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      ) : (
        <p>No tokens yet.</p>
      )}
      {admin ? (
        <>
          <h2 id="new-token">New token</h2>
          <Form method="post" className="filters" aria-labelledby="new-token">
            <input type="hidden" name="intent" value="create" />
            <label className="wide">
              Name
              <input name="name" required maxLength={80} />
            </label>
            <label>
              Role
              <select name="role" defaultValue="viewer">
                <option value="viewer">viewer (reads)</option>
                <option value="admin">admin (reads and changes)</option>
              </select>
            </label>
            <button type="submit">Make a token</button>
          </Form>
        </>
      ) : null}
    </>
  );
}
