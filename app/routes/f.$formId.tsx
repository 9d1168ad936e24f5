import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { CaptchaWidget } from "~/components/captcha-widget";
import { ErrorSummary } from "~/components/error-summary";
import { FormField } from "~/components/form-field";
import { findForm } from "~/forms/registry";
import { acceptSubmission } from "~/lib/accept.server";
import { readSettings } from "~/lib/env.server";
import { ERRORS, isCaptchaError } from "~/lib/errors";
import { pageMeta } from "~/lib/meta";
import { refusal } from "~/lib/responses.server";

export const meta: MetaFunction<typeof loader> = ({ data }) =>
  data ? pageMeta(data.form.title, data.form.description) : [];

export function loader({ params, context }: LoaderFunctionArgs) {
  const form = findForm(params.formId);
  if (!form) throw refusal("form_not_found");
  const settings = readSettings(context.cloudflare.env);
  const { id, title, description, fields } = form;
  return { form: { id, title, description, fields }, siteKey: settings.siteKey, scriptUrl: settings.scriptUrl };
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const form = findForm(params.formId);
  if (!form) throw refusal("form_not_found");
  const result = await acceptSubmission({ request, form, env: context.cloudflare.env, ctx: context.cloudflare.ctx });
  if (result.ok) return redirect(`/f/${form.id}/thanks/${result.id}`, 303);
  if (result.code === "body_too_large") throw refusal(result.code);
  return data(
    { code: result.code, fieldErrors: result.fieldErrors ?? {}, values: result.values ?? {} },
    { status: ERRORS[result.code].status },
  );
}

export default function FormPage() {
  const { form, siteKey, scriptUrl } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const [token, setToken] = useState<string | null>(null);
  const [resetKey, setResetKey] = useState(0);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  // Any refusal may have spent the token, so the widget always starts over.
  useEffect(() => {
    if (result) setResetKey((n) => n + 1);
  }, [result]);

  const submitting = navigation.state !== "idle" && navigation.formMethod === "POST";
  const errors = result?.fieldErrors ?? {};
  const message = result && result.code !== "validation_failed" ? ERRORS[result.code].message : null;
  // Without JS the button stays enabled: the server then explains that the captcha is needed.
  const waitingForCaptcha = hydrated && !token;
  return (
    <>
      <h1>{form.title}</h1>
      <p className="lead">{form.description}</p>
      {result ? (
        <ErrorSummary fields={form.fields} errors={errors} message={message} />
      ) : null}
      <Form method="post" noValidate aria-describedby={result && isCaptchaError(result.code) ? "summary-title" : undefined}>
        {form.fields.map((field) => (
          <FormField key={field.name} field={field} value={result?.values[field.name] ?? ""} error={errors[field.name]} />
        ))}
        <CaptchaWidget siteKey={siteKey} scriptUrl={scriptUrl} action={form.id} resetKey={resetKey} onTokenChange={setToken} />
        <button type="submit" disabled={submitting || waitingForCaptcha} aria-describedby="submit-hint">
          {submitting ? "Sending…" : "Send"}
        </button>
        {/* The same text before and after hydration: text that appears later shifts the layout and
            becomes the page's largest paint, which costs Lighthouse's LCP and CLS. */}
        <p id="submit-hint" className="captcha-status">
          The form can be sent once the captcha check is complete.
        </p>
      </Form>
    </>
  );
}
