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
import { useEffect, useState } from "react";
import type { CaptchaWidget } from "~/components/captcha-widget";
import { en } from "~/lib/i18n/messages/en";
import type { PageTexts } from "~/lib/i18n/messages/types";
import { findUser, requireSameOrigin, safeNext } from "~/lib/auth/admin-user.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { readAdminForm } from "~/lib/console/input.server";
import { signIn, SIGN_IN_CAPTCHA_ACTION } from "~/lib/auth/sign-in.server";
import { TOKEN_FIELD } from "~/lib/forms/field-names";
import { ERRORS } from "~/lib/http/errors";
import { pageMeta } from "~/lib/text/page-meta";
import { rateLimitHeaders } from "~/lib/http/rate-limit.server";
import { ERROR_CODE_HEADER } from "~/lib/http/responses.server";
import { consoleRoute } from "~/lib/console/route.server";
import { waitOf } from "~/lib/text/count";

// The one admin page without a session; light (no client library, one field) to score 100 in Lighthouse.

export const meta: MetaFunction = () =>
  pageMeta("Operator sign-in", "Sign in to the Gatepost operator console to review submissions and their deliveries.");

// A refusal keeps its code, and a 429 its Retry-After and RateLimit fields.
export const headers: HeadersFunction = ({ actionHeaders }) => {
  const headers = new Headers();
  for (const name of ["Retry-After", "RateLimit", "RateLimit-Policy", ERROR_CODE_HEADER]) {
    const value = actionHeaders.get(name);
    if (value) headers.set(name, value);
  }
  return headers;
};

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  const next = safeNext(new URL(request.url).searchParams.get("next"));
  if (await findUser(request, context)) throw redirect(next, 303);
  const config = context.settings.admin;
  // The setting names travel as loader data, so the client bundle never names a secret.
  const setup = { hash: "ADMIN_PASSWORD_HASH", secret: "SESSION_SECRET" };
  return {
    next,
    open: config.open,
    passwordSignIn: config.passwordSignIn,
    access: Boolean(config.access),
    problems: config.problems,
    setup,
  };
});

// A password too long to be one is simply wrong, never a 500.
const SignInFormSchema = z.object({
  password: z.string().catch(""),
  next: z.string().optional().catch(undefined),
  [TOKEN_FIELD]: z.string().optional().catch(undefined),
});

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  requireSameOrigin(request);
  const form = await readAdminForm(request, SignInFormSchema);
  const env = context.cloudflare.env;
  const result = await signIn(request, context, form.password, form[TOKEN_FIELD] || null, context.now());
  if (result.ok) {
    await env.DB.batch([auditStatement(env.DB, { user: result.user, request, action: "sign-in" })]);
    const headers = new Headers();
    for (const cookie of result.cookies) headers.append("Set-Cookie", cookie);
    return redirect(safeNext(form.next), { status: 303, headers });
  }
  const headers = "rate" in result && result.rate ? rateLimitHeaders(result.rate.verdict, result.rate.rules) : new Headers();
  headers.set(ERROR_CODE_HEADER, result.code);
  const { siteKey, scriptUrl } = context.settings.turnstile;
  // The console speaks English; the widget's words come with the answer, so the page ships no catalogue.
  const captcha =
    "captcha" in result && result.captcha
      ? { siteKey, scriptUrl, action: SIGN_IN_CAPTCHA_ACTION, texts: en.page.captcha, language: "en" }
      : null;
  const retryAfterSeconds = "retryAfterSeconds" in result ? result.retryAfterSeconds : null;
  // The message travels with the answer, so the page ships no catalogue.
  const { status, message } = ERRORS[result.code];
  return json({ code: result.code, message, captcha, retryAfterSeconds }, { status, headers });
});

type Captcha = { siteKey: string; scriptUrl: string; action: string; texts: PageTexts["captcha"]; language: string };

/** The forms' own Turnstile widget, fetched only when a check is asked for, so the page stays light. */
function SignInCheck({
  captcha,
  resetKey,
  onTokenChange,
}: {
  captcha: Captcha;
  resetKey: number;
  onTokenChange: (token: string | null) => void;
}) {
  const [Widget, setWidget] = useState<typeof CaptchaWidget | null>(null);
  useEffect(() => {
    let live = true;
    void import("~/components/captcha-widget").then((module) => live && setWidget(() => module.CaptchaWidget));
    return () => {
      live = false;
    };
  }, []);
  if (Widget) return <Widget {...captcha} resetKey={resetKey} onTokenChange={onTokenChange} />;
  return (
    <div className="captcha">
      <p className="captcha-status" data-captcha-status="loading" role="status">
        Loading the check…
      </p>
      <noscript>
        <p className="notice error">The check needs JavaScript. Turn JavaScript on for this site, then reload the page to sign in.</p>
      </noscript>
    </div>
  );
}

export default function AdminLogin() {
  const { next, open, passwordSignIn, access, problems, setup } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  const [token, setToken] = useState<string | null>(null);
  const [resetKey, setResetKey] = useState(0);
  // Every answer may have spent the token, so the widget starts over after each one.
  useEffect(() => {
    if (result) setResetKey((n) => n + 1);
  }, [result]);
  const captcha = result?.captcha ?? null;
  return (
    <div className="sign-in">
      <h1>Operator sign-in</h1>
      <p className="lead">The console shows this site's submissions and where each one was delivered.</p>
      {!open ? (
        <div className="notice error">
          <h2>The operator console is closed</h2>
          <p>
            No way to sign in is configured, so nobody can. Make a password hash with{" "}
            <code>npm run admin:hash-password -- &apos;your password&apos;</code>, set it as <code>{setup.hash}</code>, and set{" "}
            <code>{setup.secret}</code> to 32 or more random characters (docs/deploy.md, step 3).
          </p>
        </div>
      ) : null}
      {problems.length > 0 ? (
        <div className="notice error">
          <ul>
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {access ? <p>If this site is behind Cloudflare Access, signing in there lets you in as admin.</p> : null}
      {passwordSignIn ? (
        <Form method="post" replace>
          <input type="hidden" name="next" value={next} />
          {result ? (
            <p className="notice error" role="alert" id="login-error">
              {result.retryAfterSeconds !== null
                ? `Too many sign-in attempts from here. Try again in ${waitOf(result.retryAfterSeconds)}.`
                : result.message}
            </p>
          ) : null}
          <div className="field">
            <label htmlFor="password">Password</label>
            <input
              id="password"
              className="control"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              aria-invalid={result ? true : undefined}
              aria-describedby={result ? "login-error" : undefined}
            />
          </div>
          {captcha ? <SignInCheck captcha={captcha} resetKey={resetKey} onTokenChange={setToken} /> : null}
          <button type="submit" disabled={busy || (captcha !== null && !token)}>
            {busy ? "Signing in…" : "Sign in"}
          </button>
        </Form>
      ) : null}
    </div>
  );
}
