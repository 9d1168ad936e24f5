import { z } from "zod";
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData } from "@remix-run/react";
import { eraseEmail } from "~/lib/submissions/actions.server";
import { requireAdminAction, requireUser } from "~/lib/auth/admin-user.server";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/console/page";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { EraseEmailSchema, emailTag, findByEmail } from "~/lib/submissions/erase.server";
import { readAdminForm } from "~/lib/console/input.server";
import { countOf } from "~/lib/text/count";
import { consoleRoute } from "~/lib/console/route.server";

// Erasure for a data request, in two steps: "find" shows what would go, "erase" deletes it.
export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("Erase by e-mail", "Erase every submission that holds an e-mail address.");

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  await requireUser(request, context);
  return null;
});

// A missing or odd intent is a "find" (the safe step); only an exact erase + confirm erases.
const EraseFormSchema = z.object({
  intent: z.enum(["find", "erase"]).catch("find"),
  email: z.string().catch(""),
  confirm: z.string().optional().catch(undefined),
});

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  const env = context.cloudflare.env;
  const user = await requireAdminAction(request, context);
  const form = await readAdminForm(request, EraseFormSchema);
  const parsed = EraseEmailSchema.safeParse(form.email);
  if (!parsed.success) return json({ step: "error" as const, message: "Enter a whole e-mail address." }, { status: 400 });
  const email = parsed.data;
  if (form.intent === "erase" && form.confirm === "yes") {
    const result = await eraseEmail({ env, settings: context.settings, user, request, now: context.now }, email);
    return { step: "done" as const, message: result.message };
  }
  const matches = await findByEmail(env.DB, email);
  await env.DB.batch([
    auditStatement(env.DB, {
      user,
      request,
      action: "erase.preview",
      detail: { emailTag: await emailTag(email, context.settings.admin.sessionSecrets[0]), matched: matches.length },
    }),
  ]);
  return { step: "confirm" as const, email, matches };
});

export default function Erase() {
  const result = useActionData<typeof action>();
  return (
    <>
      <h1>Erase by e-mail</h1>
      <p>
        For a data request: finds every submission, in every form, with a field that is exactly this address, and erases them with their
        delivery logs. The audit log records that an erase happened and how many went, never the address.
      </p>
      {result && "message" in result ? (
        <p className={result.step === "done" ? "notice ok" : "notice error"} role="status">
          {result.message}
        </p>
      ) : null}
      <Form method="post" className="filters">
        <input type="hidden" name="intent" value="find" />
        <label className="wide">
          E-mail address
          <input type="email" name="email" required defaultValue={result && "email" in result ? result.email : ""} />
        </label>
        <button type="submit">Find submissions</button>
      </Form>
      {result?.step === "confirm" ? (
        <section aria-labelledby="confirm-title">
          <h2 id="confirm-title">{countOf(result.matches.length, "submission", "submissions")} found</h2>
          {result.matches.length === 0 ? (
            <div className="empty">
              <strong>Nothing to erase</strong>
              <p>No submission in any form has a field that is exactly this address.</p>
            </div>
          ) : (
            <ul>
              {result.matches.map((m) => (
                <li key={m.id}>
                  {m.formId}, {formatUtc(m.receivedAt)} (<code>{m.id}</code>)
                </li>
              ))}
            </ul>
          )}
          {result.matches.length > 0 ? (
            <Form method="post">
              <input type="hidden" name="intent" value="erase" />
              <input type="hidden" name="email" value={result.email} />
              <input type="hidden" name="confirm" value="yes" />
              <button type="submit" className="danger">
                Erase {result.matches.length} permanently
              </button>
            </Form>
          ) : null}
        </section>
      ) : null}
    </>
  );
}
