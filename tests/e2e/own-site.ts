import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";
// @ts-expect-error - plain ESM helpers shared with npm start
import { applyLocalMigrations, startWorkerDev } from "../../scripts/worker-dev.mjs";
// @ts-expect-error - plain ESM helper
import { freePort } from "../../scripts/process-group.mjs";
// @ts-expect-error - plain ESM helper shared with npm run admin:hash-password
import { hashPassword } from "../../scripts/hash-password.mjs";
// @ts-expect-error - the local sink npm start runs
import { startLocalSink } from "../../dev/local-sink.mjs";

// A Gatepost of a test file's own, as `npm start` runs it: `wrangler dev` on a fresh local D1, the
// stand-in Turnstile provider, an admin password, and the local sink as the contact form's webhook;
// for files whose destinations or failures must not reach the other e2e files' contact form.

export type Sink = Awaited<ReturnType<typeof startLocalSink>>;

export interface OwnSite {
  url: string;
  port: number;
  sink: Sink;
  tick: () => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * Starts it under `name` with `bindings(sink, port)` over the shared ones; `onEmail` gets the simulated
 * send_email binding's messages. stop() ends the Worker and the sink and removes the D1.
 */
export async function startOwnSite(
  name: string,
  {
    password,
    secret,
    bindings = () => ({}),
    onEmail,
  }: {
    password: string;
    secret: string;
    bindings?: (sink: Sink, port: number) => Record<string, string>;
    onEmail?: (raw: string, sink: Sink) => void;
  },
): Promise<OwnSite> {
  const persistTo = path.join(path.resolve(__dirname, "../.."), ".wrangler", `e2e-${name}-${process.pid}`);
  rmSync(persistTo, { recursive: true, force: true });
  mkdirSync(persistTo, { recursive: true });
  applyLocalMigrations({ persistTo });
  const sink: Sink = await startLocalSink({ secret });
  const port: number = await freePort();
  const site = await startWorkerDev({
    port,
    persistTo,
    bindings: {
      TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
      TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
      TURNSTILE_VERIFY_URL: `${inject("standinOrigin")}/turnstile/v0/siteverify`,
      TURNSTILE_SCRIPT_URL: `${inject("standinOrigin")}/turnstile/v0/api.js`,
      FORM_SIGNING_SECRET: `e2e-${name}-form-signing-secret-0123456789`,
      ADMIN_PASSWORD_HASH: await hashPassword(password),
      SESSION_SECRET: `e2e-${name}-session-secret-0123456789abcdef0123`,
      ALLOW_LOOPBACK_WEBHOOKS: "true",
      CONTACT_WEBHOOK_URL: sink.webhookUrl,
      CONTACT_WEBHOOK_SECRET: secret,
      ...bindings(sink, port),
    },
    onEmail: onEmail ? (raw: string) => onEmail(raw, sink) : undefined,
  });
  return {
    url: site.url,
    port,
    sink,
    tick: site.tick,
    async stop() {
      await site.stop();
      await sink.close();
      rmSync(persistTo, { recursive: true, force: true });
    },
  };
}
