import type { FormDef } from "~/forms/schema";
import { webhookUrlProblem } from "~/lib/destinations/checks";
import { EMAIL_PROVIDERS, type EmailProvider } from "~/lib/destinations/email-providers";
import { settingSpec } from "~/lib/destinations/registry";
import { providerMailer } from "~/lib/sending/email-provider.server";
import type { Mailer } from "~/lib/sending/mailer.server";
import { formSettingName, type Settings } from "~/lib/settings/settings.server";

// Which way a form's e-mail goes out (ADR 092, 097): the owner's e-mail, confirmations and pause notices.

export type Transport = { ok: true; mailer: Mailer } | { ok: false; reason: string };

type ProviderSuffix = "EMAIL_PROVIDER" | "EMAIL_PROVIDER_API_KEY" | "EMAIL_PROVIDER_URL";

/** The form's own provider settings when it names a provider, else the site-wide ones (ADR 097). */
function providerSettings(
  settings: Settings,
  form: FormDef,
): { value(suffix: ProviderSuffix): string; variable(suffix: ProviderSuffix): string } {
  const own = settings.form(form.id);
  if (own.EMAIL_PROVIDER !== "") return { value: (suffix) => own[suffix], variable: (suffix) => formSettingName(form.id, suffix) };
  return {
    value: (suffix) => settings.siteWide[suffix] ?? "",
    variable: (suffix) => settingSpec(suffix)?.setting.siteWide?.variable ?? suffix,
  };
}

/** How a form's e-mail goes out: its provider (the form's, else the site's), else the send_email `binding`. */
export function emailTransport(settings: Settings, form: FormDef, binding: Mailer | null, doFetch?: typeof fetch): Transport {
  const { value, variable } = providerSettings(settings, form);
  const provider = value("EMAIL_PROVIDER").toLowerCase();
  if (provider === "") {
    return binding
      ? { ok: true, mailer: binding }
      : { ok: false, reason: "the Worker has no send_email binding named SEND_EMAIL (docs/deploy.md)" };
  }
  if (!(EMAIL_PROVIDERS as readonly string[]).includes(provider)) {
    return { ok: false, reason: `${variable("EMAIL_PROVIDER")} must be one of ${EMAIL_PROVIDERS.join(", ")}` };
  }
  const apiKey = value("EMAIL_PROVIDER_API_KEY");
  if (!apiKey) return { ok: false, reason: `${variable("EMAIL_PROVIDER_API_KEY")} is not set` };
  const baseUrl = value("EMAIL_PROVIDER_URL");
  const problem = baseUrl ? webhookUrlProblem(baseUrl, settings.allowLoopbackHttp) : null;
  if (problem) return { ok: false, reason: `${variable("EMAIL_PROVIDER_URL")} ${problem}` };
  return { ok: true, mailer: providerMailer(provider as EmailProvider, apiKey, { baseUrl, fetch: doFetch }) };
}
