import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import type { ErrorCode } from "~/lib/http/errors";
import { catalogFormSettings, catalogSettings, findForm } from "~/lib/forms/live.server";
import { acceptSubmission } from "~/lib/submit/accept.server";
import { acceptedJson, problemHtml, problemJson, wantsJson } from "~/lib/http/responses.server";
import { answerPreflight, checkOrigin, corsHeaders } from "~/lib/http/cors.server";
import { allowedOriginsFor } from "~/lib/settings/form-guards.server";
import { rateLimitHeaders } from "~/lib/http/rate-limit.server";
import { errorText, htmlRefusalWords } from "~/lib/i18n/catalogue.server";
import { chooseLanguage } from "~/lib/text/languages";
import { languagesOf, localizeForm } from "~/lib/i18n/localize-form";

// POST /api/forms/:formId/submissions — the public API other sites post to, with fetch or a plain
// HTML form. The accept pipeline does the work; this route only shapes the answer (JSON or HTML).

const ALLOW = "POST, OPTIONS";

// OPTIONS (CORS preflight) and GET/HEAD arrive here: resource routes send non-mutations to the loader.
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  if (request.method !== "OPTIONS") return problemJson("method_not_allowed", new Headers({ Allow: ALLOW }));
  const found = await findForm(context, params.formId);
  if (!found.ok) return problemJson(found.code, new Headers({ Vary: "Origin" }));
  const allowed = allowedOriginsFor(found.live.form, catalogFormSettings(context.settings, found.catalog));
  return answerPreflight(request, allowed) ?? problemJson("origin_not_allowed", new Headers({ Vary: "Origin" }));
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const json = wantsJson(request);
  if (request.method !== "POST") return problemJson("method_not_allowed", new Headers({ Allow: ALLOW }));
  const found = await findForm(context, params.formId);
  if (!found.ok) return json ? problemJson(found.code) : problemHtml(found.code, null);
  const { live, catalog } = found;
  const form = live.form;
  // A visitor's language of the form's (?lang= on the action, else Accept-Language): messages speak it.
  const lang = chooseLanguage(languagesOf(form), new URL(request.url).searchParams, request.headers.get("accept-language"));
  const shown = localizeForm(form, lang);
  const refuse = (code: ErrorCode, headers: Headers, fieldErrors?: Record<string, string>) =>
    json
      ? problemJson(code, headers, fieldErrors, {}, errorText(code, lang))
      : problemHtml(code, shown, headers, fieldErrors, htmlRefusalWords(code, lang, shown.title));
  const { env, ctx } = context.cloudflare;
  const settings = catalogSettings(context.settings, catalog);
  const origin = checkOrigin(request, allowedOriginsFor(form, settings.forms));
  const headers = corsHeaders(origin.ok ? origin.corsOrigin : null);
  if (live.archived) return refuse("form_archived", headers);

  const { mailer, now } = context;
  const result = await acceptSubmission({
    request,
    form,
    formVersion: live.version,
    env,
    settings,
    ctx,
    mailer,
    now,
    channel: "api",
    lang,
  });
  if (result.rate) rateLimitHeaders(result.rate.verdict, result.rate.rules).forEach((value, name) => headers.set(name, value));
  if (result.ok) {
    if (json) return acceptedJson(result.id, result.replayed, headers);
    return redirect(form.redirectUrl ?? `/f/${form.id}/thanks/${result.id}`, { status: 303, headers });
  }
  return refuse(result.code, headers, result.fieldErrors);
}
