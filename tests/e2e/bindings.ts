import { randomBytes } from "node:crypto";
// @ts-ignore - plain ESM helper shared with npm start and the benchmark
import { startWebhookSink } from "../support/webhook-sink.mjs";

// Extra bindings and helper servers the e2e app needs beyond Turnstile (webhook sink, admin password,
// allowed origins…). Each feature adds its own entry here; global-setup passes them to pages dev, and
// `provide` values to the tests (inject()).
export interface ExtraBindings {
  bindings: Record<string, string>;
  provide: Record<string, string>;
  stop: () => Promise<void>;
}

declare module "vitest" {
  interface ProvidedContext {
    sinkControl: string;
  }
}

export async function extraBindings(): Promise<ExtraBindings> {
  const bindings: Record<string, string> = {};
  const provide: Record<string, string> = {};
  const stops: Array<() => Promise<void>> = [];

  // Webhooks (issue 3): the contact form delivers to a local sink that verifies signatures.
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const sink = await startWebhookSink({ secret });
  stops.push(() => sink.close());
  Object.assign(bindings, { CONTACT_WEBHOOK_URL: sink.url, CONTACT_WEBHOOK_SECRET: secret, ALLOW_LOOPBACK_WEBHOOKS: "true" });
  provide.sinkControl = sink.controlOrigin;

  return {
    bindings,
    provide,
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
