import { z } from "zod";
import {
  json,
  redirect,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { requireSameOrigin } from "~/lib/auth/admin-user.server";
import { adminMeta } from "~/lib/console/page";
import { readAdminForm } from "~/lib/console/input.server";
import { consoleRoute } from "~/lib/console/route.server";
import { ERRORS } from "~/lib/http/errors";
import { ERROR_CODE_HEADER } from "~/lib/http/responses.server";
import { findInvitation, joinWithPassword, MIN_PASSWORD_LENGTH } from "~/lib/people/join.server";

// An invitation's link (docs/people.md): the person chooses a password and is signed in. Public like
// the sign-in page (the link is the credential), never cached or indexed.
// Never cached; a refusal keeps its code (a document POST renders the page, whose headers come from here).
export const headers: HeadersFunction = ({ actionHeaders, loaderHeaders }) => {
  const code = actionHeaders.get(ERROR_CODE_HEADER) ?? loaderHeaders.get(ERROR_CODE_HEADER);
  return { "Cache-Control": "private, no-store", ...(code ? { [ERROR_CODE_HEADER]: code } : {}) };
};
export const meta: MetaFunction = () => adminMeta("Join the console", "Choose how you sign in to the Gatepost console.");

export const loader = consoleRoute(async ({ params, context }: LoaderFunctionArgs) => {
  const person = await findInvitation(context.cloudflare.env.DB, params.token ?? "", context.now());
  if (!person) {
    const { status, message } = ERRORS.invitation_invalid;
    return json(
      { invited: null, message, minLength: MIN_PASSWORD_LENGTH },
      { status, headers: { [ERROR_CODE_HEADER]: "invitation_invalid" } },
    );
  }
  return json({ invited: { email: person.email, role: person.role }, message: null, minLength: MIN_PASSWORD_LENGTH });
});

const JoinSchema = z.object({ password: z.string().catch(""), confirm: z.string().catch("") });

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  requireSameOrigin(request);
  const form = await readAdminForm(request, JoinSchema);
  const joined = await joinWithPassword(request, context, { token: params.token ?? "", ...form, nowMs: context.now() });
  if (joined.ok) return redirect("/admin", { status: 303, headers: { "Set-Cookie": joined.cookie } });
  const { status, message } = ERRORS[joined.code];
  return json({ code: joined.code, message }, { status, headers: { [ERROR_CODE_HEADER]: joined.code } });
});

export default function Join() {
  const { invited, message, minLength } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  if (!invited) {
    return (
      <div className="sign-in">
        <h1>Join the console</h1>
        <p className="notice error">{message}</p>
      </div>
    );
  }
  return (
    <div className="sign-in">
      <h1>Join the console</h1>
      <p className="lead">
        You are invited as <strong>{invited.role}</strong> with <strong>{invited.email}</strong>. Choose a password to sign in with.
      </p>
      <Form method="post" replace>
        {result ? (
          <p className="notice error" role="alert" id="join-error">
            {result.message}
          </p>
        ) : null}
        <input type="email" name="email" value={invited.email} autoComplete="username" readOnly hidden />
        <div className="field">
          <label htmlFor="password">New password (at least {minLength} characters)</label>
          <input
            id="password"
            className="control"
            name="password"
            type="password"
            autoComplete="new-password"
            minLength={minLength}
            required
            aria-describedby={result ? "join-error" : undefined}
          />
        </div>
        <div className="field">
          <label htmlFor="confirm">The same password again</label>
          <input
            id="confirm"
            className="control"
            name="confirm"
            type="password"
            autoComplete="new-password"
            minLength={minLength}
            required
          />
        </div>
        <button type="submit" disabled={busy}>
          {busy ? "Joining…" : "Set my password and sign in"}
        </button>
      </Form>
    </div>
  );
}
