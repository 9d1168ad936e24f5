import { settingsOf, type Settings } from "./app/lib/settings/settings.server";
import { bindingMailer, type EmailMessageConstructor, type Mailer } from "./app/lib/sending/mailer.server";
import { oncePerRequest, type OncePerRequest } from "./app/lib/platform/once-per-request";

// What the Worker (functions/fetch.ts) and `npm run dev`'s platform proxy put on context.cloudflare.
// PlatformProxy's stricter type fails tsc on the Worker's ExecutionContext (props), so the shape is
// spelled out here.
export type Cloudflare = {
  env: Env;
  cf?: unknown;
  ctx: { waitUntil(promise: Promise<unknown>): void; passThroughOnException(): void };
  caches?: unknown;
};

declare module "@remix-run/cloudflare" {
  interface AppLoadContext {
    cloudflare: Cloudflare;
    /** Every setting, parsed once per env object (settingsOf in app/lib/settings/settings.server.ts). */
    settings: Settings;
    /** Sends e-mail through the send_email binding; null where the runtime has none (deliveries are held). */
    mailer: Mailer | null;
    /** The clock the accept path, the verify endpoint and the console's actions read: Date.now, or a test's. */
    now: () => number;
    /** Work this request's loaders would each repeat, done once (app/lib/platform/once-per-request.ts). */
    once: OncePerRequest;
  }
}

/** The Worker's mailer, or null without the binding or `EmailMessage` (only functions/ imports cloudflare:email). */
export function createMailer(env: Env, EmailMessage?: EmailMessageConstructor): Mailer | null {
  return env.SEND_EMAIL && EmailMessage ? bindingMailer(env.SEND_EMAIL, EmailMessage) : null;
}

/** The one load context: the Worker builds it per request, and Vite's dev proxy (`npm run dev`) through getLoadContext. */
export function createLoadContext(cloudflare: Cloudflare, EmailMessage?: EmailMessageConstructor, now: () => number = Date.now) {
  return {
    cloudflare,
    settings: settingsOf(cloudflare.env),
    mailer: createMailer(cloudflare.env, EmailMessage),
    now,
    once: oncePerRequest(),
  };
}

export const getLoadContext = ({ context }: { request: Request; context: { cloudflare: Cloudflare } }) =>
  createLoadContext(context.cloudflare);
