import { EmailMessage } from "cloudflare:email";
import { settingsOf } from "../app/lib/settings/settings.server";
import { exportQueueOf } from "../app/lib/exports/queue.server";
import { createMailer } from "../load-context";
import { appHooks } from "./server-build";

// The cron (every minute): drain the outbox, prune limit windows, apply retention, sweep orphaned
// uploads (app/lib/maintenance/maintenance.server.ts). Awaited rather than
// handed to waitUntil, so a run ends when its jobs end and a caller that triggers runs back to back
// (`wrangler dev --test-scheduled`, the benchmark) never stacks them up.
export async function handleScheduled(_controller: ScheduledController, env: Env): Promise<void> {
  const results = await appHooks.runMaintenance({
    db: env.DB,
    bucket: env.UPLOADS ?? null,
    settings: settingsOf(env),
    mailer: createMailer(env, EmailMessage),
    now: Date.now,
    // Bound only when wrangler.toml turns the delivery queue on (docs/decisions/070).
    queue: (env as { DELIVERY_QUEUE?: Queue<never> }).DELIVERY_QUEUE ?? null,
    exportQueue: exportQueueOf(env),
  });
  console.log(JSON.stringify({ maintenance: results }));
}
