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
import { CaptchaWidget, type CaptchaStatus } from "~/components/captcha-widget";
import { ErrorSummary } from "~/components/error-summary";
import { FormBody } from "~/components/form-body";
import { StorageGuard } from "~/components/storage-guard";
import { catalogFormSettings, catalogSettings, findForm } from "~/lib/forms/live.server";
import { embedHeaders, embedQuery, embedViewOf } from "~/lib/embed/framed-page.server";
import { FRAME_ANCESTORS_HEADER } from "~/lib/http/security-headers.server";
import { allowedOriginsFor } from "~/lib/settings/form-guards.server";
import { acceptSubmission } from "~/lib/submit/accept.server";
import { ERROR_CODE_HEADER } from "~/lib/http/responses.server";
import { ERRORS, isCaptchaError, type ErrorCode } from "~/lib/http/errors";
import { errorText, pageLanguage, refusalPage } from "~/lib/i18n/catalogue.server";
import { chooseLanguage, type Lang } from "~/lib/text/languages";
import { languagesOf, localizeForm } from "~/lib/i18n/localize-form";
import type { FormDef } from "~/forms/schema";
import { HONEYPOT_FIELD, STAMP_FIELD, SUBMISSION_ID_FIELD } from "~/lib/forms/field-names";
import { prefilledValues } from "~/lib/forms/prefill";
import { signFormStamp } from "~/lib/submit/form-stamp.server";
import { pageMeta } from "~/lib/text/page-meta";
import { askedOnEcho } from "~/lib/conditions/page-values";
import { withConditions } from "~/lib/conditions/evaluate";
import { rateLimitHeaders } from "~/lib/http/rate-limit.server";
import { refusal } from "~/lib/http/responses.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => (data ? pageMeta(data.form.title, data.form.description) : []);

// Remix drops action headers unless the route passes them on (a refusal's code, Retry-After, frame-ancestors).
export const headers: HeadersFunction = ({ actionHeaders, loaderHeaders }) => {
  if (!actionHeaders.has(ERROR_CODE_HEADER)) return loaderHeaders;
  const framed = loaderHeaders.get(FRAME_ANCESTORS_HEADER);
  const headers = new Headers(actionHeaders);
  if (framed) headers.set(FRAME_ANCESTORS_HEADER, framed);
  return headers;
};

function languageFor(form: FormDef, query: URLSearchParams, request: Request) {
  return chooseLanguage(languagesOf(form), query, request.headers.get("accept-language"));
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const found = await findForm(context, params.formId);
  if (!found.ok) throw refusal(found.code);
  const query = new URL(request.url).searchParams;
  const lang = languageFor(found.live.form, query, request);
  if (found.live.archived) throw refusal("form_archived", refusalPage("form_archived", lang));
  const form = localizeForm(found.live.form, lang);
  const allowed = allowedOriginsFor(form, catalogFormSettings(context.settings, found.catalog));
  const view = embedViewOf(query, allowed);
  const { turnstile, forms } = context.settings;
  const secret = forms.signingSecret;
  const { id, title, description, steps } = form;
  const prefill = prefilledValues(form.fields, query);
  // The stamp is signed over this render's submission id, so each render buys one submission.
  const sid = crypto.randomUUID();
  return json(
    {
      // Each field with its whole condition: the page needs no groups (app/lib/conditions/evaluate.ts).
      form: { id, title, description, fields: withConditions(form), steps },
      // What the address fills in (fields that declare prefill); the post is validated like typed values.
      prefill,
      asked: askedOnEcho(form, prefill),
      // One language's texts, not the catalogues: the page ships only what it shows (ADR 075).
      i18n: pageLanguage(lang),
      embed: view.embed,
      embedParent: view.parent,
      siteKey: turnstile.siteKey,
      scriptUrl: turnstile.scriptUrl,
      stamp: secret ? await signFormStamp(secret, form.id, sid, context.now()) : "",
      sid,
    },
    // The stamp and submission id are per visit: a shared cache must never hand them to someone else.
    { headers: embedHeaders(view, allowed, new Headers({ "Cache-Control": "private, no-store", Vary: "Accept-Language" })) },
  );
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const found = await findForm(context, params.formId);
  if (!found.ok) throw refusal(found.code);
  if (found.live.archived) throw refusal("form_archived");
  const { live, catalog } = found;
  const form = live.form;
  const query = new URL(request.url).searchParams;
  const lang = languageFor(form, query, request);
  if (request.method !== "POST") return refuse("method_not_allowed", lang, new Headers({ Allow: "GET, POST" }));
  const { env, ctx } = context.cloudflare;
  const { mailer, now } = context;
  const settings = catalogSettings(context.settings, catalog);
  const result = await acceptSubmission({
    request,
    form,
    formVersion: live.version,
    env,
    settings,
    ctx,
    mailer,
    now,
    channel: "page",
    lang,
  });
  // The thank-you page speaks the language the submission was made in (kept with it); framed, it stays framed.
  const view = embedViewOf(query, allowedOriginsFor(form, settings.forms));
  if (result.ok) return redirect(`/f/${form.id}/thanks/${result.id}${embedQuery(view)}`, 303);
  const headers = result.rate ? rateLimitHeaders(result.rate.verdict, result.rate.rules) : new Headers();
  const values = result.values ?? {};
  return refuse(result.code, lang, headers, result.fieldErrors, values, result.keep, askedOnEcho(form, values));
}

function refuse(
  code: ErrorCode,
  lang: Lang,
  headers: Headers,
  fieldErrors: Record<string, string> = {},
  values: Record<string, string> = {},
  keep: { stamp: string; sid: string | null } | null = null,
  asked: string[] = [],
) {
  headers.set(ERROR_CODE_HEADER, code);
  headers.set("Cache-Control", "no-store");
  const message = code === "validation_failed" ? null : errorText(code, lang);
  return json({ code, message, captcha: isCaptchaError(code), fieldErrors, values, keep, asked }, { status: ERRORS[code].status, headers });
}

/** One object for "no errors", so the fields' effects run on a new answer only. */
const NO_ERRORS: Record<string, string> = {};

export default function FormPage() {
  const { form, asked, prefill, i18n, siteKey, scriptUrl, stamp, sid, embed } = useLoaderData<typeof loader>();
  const { page } = i18n;
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const [token, setToken] = useState<string | null>(null);
  const [resetKey, setResetKey] = useState(0);
  const [hydrated, setHydrated] = useState(false);
  const [captcha, setCaptcha] = useState<CaptchaStatus>("loading");
  useEffect(() => setHydrated(true), []);
  // Any refusal may have spent the token, so the widget always starts over.
  useEffect(() => {
    if (result) setResetKey((n) => n + 1);
  }, [result]);

  const submitting = navigation.state !== "idle" && navigation.formMethod === "POST";
  const errors = result?.fieldErrors ?? NO_ERRORS;
  const message = result?.message ?? null;
  const waitingForCaptcha = hydrated && !token;
  // A corrected re-post keeps the first render's stamp and id, so the fill time counts from the first view.
  const keptStamp = result?.keep?.stamp ?? stamp;
  const keptSid = result?.keep?.sid ?? sid;
  return (
    <>
      {embed ? <StorageGuard /> : null}
      <h1>{form.title}</h1>
      <p className="lead">{form.description}</p>
      {result ? (
        <ErrorSummary
          fields={form.fields}
          errors={errors}
          message={message}
          titles={{ problem: page.summaryProblem, notSent: page.summaryNotSent }}
        />
      ) : null}
      <Form
        method="post"
        encType={form.fields.some((field) => field.type === "file") ? "multipart/form-data" : undefined}
        noValidate
        aria-describedby={result?.captcha ? "summary-title" : undefined}
      >
        <input type="hidden" name={STAMP_FIELD} value={keptStamp} readOnly />
        <input type="hidden" name={SUBMISSION_ID_FIELD} value={keptSid} readOnly />
        {/* The trap: invisible and out of the tab order, so only a bot fills it in. */}
        <div className="hp" aria-hidden="true">
          <label htmlFor={HONEYPOT_FIELD}>{page.honeypot}</label>
          <input type="text" id={HONEYPOT_FIELD} name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" defaultValue="" />
        </div>
        <FormBody
          form={form}
          asked={result?.asked ?? asked}
          values={result?.values ?? prefill}
          errors={errors}
          texts={i18n}
          hydrated={hydrated}
          finish={(mounted) => (
            <>
              {mounted ? (
                <CaptchaWidget
                  siteKey={siteKey}
                  scriptUrl={scriptUrl}
                  action={form.id}
                  resetKey={resetKey}
                  onTokenChange={setToken}
                  onStatusChange={setCaptcha}
                  texts={page.captcha}
                  language={i18n.lang}
                />
              ) : null}
              <div className="send">
                <button type="submit" disabled={submitting || waitingForCaptcha} aria-describedby="submit-hint">
                  {submitting ? page.sending : page.send}
                </button>
                {/* One line whatever the state: a line appearing later would shift the layout (Lighthouse's
              CLS), so before hydration it shows the waiting text, which is also true without JS. */}
                <p
                  id="submit-hint"
                  className="submit-hint"
                  data-state={hydrated ? (token ? "ready" : captcha) : "loading"}
                  aria-live="polite"
                >
                  {submitting
                    ? page.sendingHint
                    : hydrated && token
                      ? page.submitHint.ready
                      : page.submitHint[hydrated ? captcha : "loading"]}
                </p>
              </div>
            </>
          )}
        />
      </Form>
    </>
  );
}
