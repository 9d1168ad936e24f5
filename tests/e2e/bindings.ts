import { randomBytes } from "node:crypto";
// @ts-expect-error - plain ESM helper shared with npm start and the benchmark
import { startWebhookSink } from "../../dev/local-sink.mjs";
import { startStaticSites } from "./cross-origin-site";
// @ts-expect-error - plain ESM helper shared with npm run admin:hash-password
import { hashPassword } from "../../scripts/hash-password.mjs";

/** The operator console's password in the e2e app (tests/e2e/admin.test.ts signs in with it). */
export const E2E_ADMIN_PASSWORD = "e2e admin password 0123";

// Extra bindings and helper servers the e2e app needs beyond Turnstile (webhook sink, admin password,
// allowed origins…). Each feature adds its own entry here; global-setup passes `bindings` to wrangler dev
// and `provided` to the tests (inject()).
export interface ExtraBindings {
  bindings: Record<string, string>;
  provided: Record<string, string>;
  stop: () => Promise<void>;
}

declare module "vitest" {
  interface ProvidedContext {
    sinkControl: string;
    /** The sink's webhook URL, for a destination set in the console (tests/e2e/console-forms.test.ts). */
    sinkUrl: string;
    /** ADMIN_API_TOKEN, as docs/api.md's admin API examples send it ($GATEPOST_TOKEN). */
    apiToken: string;
  }
}

export async function extraBindings(): Promise<ExtraBindings> {
  const bindings: Record<string, string> = {};
  const provided: Record<string, string> = {};
  const stops: Array<() => Promise<void>> = [];

  // forms: the signing secret for page stamps; a second loopback origin allowed to post cross-origin
  // and a third that is not (tests/e2e/cross-origin.test.ts); no minimum fill time, since Playwright
  // types faster than people (tests/workers covers that trap); limits the whole suite stays under.
  const sites = await startStaticSites();
  stops.push(sites.stop);
  bindings.FORM_SIGNING_SECRET = "e2e-form-signing-secret-0123456789abcdef";
  bindings.FORM_ALLOWED_ORIGINS = `contact=${sites.allowed},${sites.crossSite.allowed} newsletter=${sites.allowed},${sites.crossSite.allowed}`;
  bindings.FORM_MIN_FILL_SECONDS = "0";
  bindings.FORM_RATE_LIMIT_PER_MINUTE = "200";
  bindings.FORM_RATE_LIMIT_PER_DAY = "2000";
  provided.allowedSite = sites.allowed;
  provided.refusedSite = sites.refused;
  provided.allowedCrossSite = sites.crossSite.allowed;
  provided.refusedCrossSite = sites.crossSite.refused;

  // polish: a brand colour and an on-site logo, so every page is checked (CSP, axe, screenshots) with
  // the site's own look; the name stays Gatepost's, which the tests look for.
  bindings.BRAND_COLOR = "#0f766e";
  bindings.SITE_LOGO_URL = "/favicon.svg";

  // admin: a known password, hashed exactly as `npm run admin:hash-password` does, and a session secret.
  bindings.ADMIN_PASSWORD_HASH = await hashPassword(E2E_ADMIN_PASSWORD);
  bindings.SESSION_SECRET = "e2e-session-secret-0123456789abcdef0123456789";
  // console forms: destinations set in the console are sealed with this key (tests/e2e/console-forms.test.ts).
  bindings.SETTINGS_ENCRYPTION_KEY = "e2e-settings-encryption-key-0123456789abcdef";
  bindings.ADMIN_API_TOKEN = "e2e-admin-api-token-0123456789abcdef0123456789";
  provided.apiToken = bindings.ADMIN_API_TOKEN;

  // outbox: the contact form delivers to a local sink that verifies signatures (tests/e2e/webhook.test.ts).
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const sink = await startWebhookSink({ secret });
  stops.push(() => sink.close());
  Object.assign(bindings, { CONTACT_WEBHOOK_URL: sink.url, CONTACT_WEBHOOK_SECRET: secret, ALLOW_LOOPBACK_WEBHOOKS: "true" });
  provided.sinkControl = sink.controlOrigin;
  provided.sinkUrl = sink.url;

  // uploads: the apply form's CV links in notifications are signed with this (local R2 comes from
  // wrangler.toml's UPLOADS binding, persisted with the rest of the e2e state).
  bindings.FILE_LINK_SECRET = "e2e-file-link-secret-0123456789abcdef0123456789";

  return {
    bindings,
    provided,
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
