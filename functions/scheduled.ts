import { EmailMessage } from "cloudflare:email";
import { settingsOf } from "../app/lib/settings/settings.server";
import { exportQueueOf } from "../app/lib/exports/queue.server";
import { createMailer } from "../load-context";
import { appHooks } from "./server-build";

// The cron's jobs, awaited rather than handed to waitUntil, so runs triggered back to back never stack up.
export async function handleScheduled(_controller: ScheduledController, env: Env): Promise<void> {
  const results = await appHooks.runMaintenance({
    db: env.DB,
    bucket: env.UPLOADS ?? null,
    settings: settingsOf(env),
    mailer: createMailer(env, EmailMessage),
    now: Date.now,
    queue: (env as { DELIVERY_QUEUE?: Queue<never> }).DELIVERY_QUEUE ?? null,
    exportQueue: exportQueueOf(env),
  });
  console.log(JSON.stringify({ maintenance: results }));
}
