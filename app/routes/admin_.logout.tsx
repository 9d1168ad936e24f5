import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireSameOrigin, requireUser } from "~/lib/admin/auth.server";
import { auditStatement } from "~/lib/admin/audit.server";
import { clearSessionCookie } from "~/lib/admin/session.server";

// Sign-out: POST only (a GET link could be triggered by any page), same-origin, audited. Any role
// may sign out, so this is the one action a viewer is allowed.
export async function action({ request, context }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const env = context.cloudflare.env;
  const user = await requireUser(request, env, "data");
  await env.DB.batch([auditStatement(env.DB, { user, request, action: "sign-out" })]);
  return redirect("/admin/login", { status: 303, headers: { "Set-Cookie": clearSessionCookie(request) } });
}

