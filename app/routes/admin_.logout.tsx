import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { requireSameOrigin, requireUser } from "~/lib/auth/admin-user.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { readAdminForm } from "~/lib/console/input.server";
import { signOut, signOutEverywhere } from "~/lib/auth/sign-in.server";
import { refusal } from "~/lib/http/responses.server";
import { consoleRoute } from "~/lib/console/route.server";

// Sign-out: POST only (a GET link could be triggered by any page), same-origin, audited. It deletes
// the session on the server, so a copied cookie stops working too. Any role may sign itself out;
// "everywhere" (every password session, this one included) is an admin's.
const SignOutFormSchema = z.object({ intent: z.enum(["this", "everywhere"]).catch("this") });

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  requireSameOrigin(request);
  const env = context.cloudflare.env;
  const user = await requireUser(request, context, "data");
  const { intent } = await readAdminForm(request, SignOutFormSchema);
  if (intent === "everywhere") {
    if (user.role !== "admin") throw refusal("admin_forbidden");
    const ended = await signOutEverywhere(context);
    await env.DB.batch([auditStatement(env.DB, { user, request, action: "sign-out.everywhere", detail: { sessions: ended } })]);
  } else {
    await env.DB.batch([auditStatement(env.DB, { user, request, action: "sign-out" })]);
  }
  return redirect("/admin/login", { status: 303, headers: { "Set-Cookie": await signOut(request, context) } });
});
