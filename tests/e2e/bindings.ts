import { randomBytes } from "node:crypto";
// @ts-ignore - plain ESM helper shared with npm run admin:hash-password
import { hashPassword } from "../../scripts/hash-password.mjs";
// @ts-ignore - plain ESM helper shared with npm start
import { startWebhookSink } from "../support/webhook-sink.mjs";

/** The operator console's password in the e2e app (tests/e2e/admin.test.ts signs in with it). */
export const E2E_ADMIN_PASSWORD = "e2e admin password 0123";

// Extra bindings and helper servers the e2e app needs beyond Turnstile (webhook sink, admin password,
// allowed origins…). Each feature adds its own entry here; global-setup passes them to pages dev.
export interface ExtraBindings {
  bindings: Record<string, string>;
  stop: () => Promise<void>;
}

export async function extraBindings(): Promise<ExtraBindings> {
  const bindings: Record<string, string> = {};
  const stops: Array<() => Promise<void>> = [];
  // admin: a known password, hashed exactly as `npm run admin:hash-password` does, and a session secret.
  bindings.ADMIN_PASSWORD_HASH = await hashPassword(E2E_ADMIN_PASSWORD);
  bindings.SESSION_SECRET = "e2e-session-secret-0123456789abcdef0123456789";
  // webhooks: the contact form delivers to a local sink, so the console has a timeline to show and redeliver.
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const sink = await startWebhookSink({ secret });
  stops.push(() => sink.close());
  Object.assign(bindings, { CONTACT_WEBHOOK_URL: sink.url, CONTACT_WEBHOOK_SECRET: secret, ALLOW_LOOPBACK_WEBHOOKS: "true" });
  return {
    bindings,
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
