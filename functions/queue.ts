import { EmailMessage } from "cloudflare:email";
import { settingsOf } from "../app/lib/settings/settings.server";
import { exportQueueOf } from "../app/lib/exports/queue.server";
import { createMailer } from "../load-context";
import { appHooks } from "./server-build";

// The export queue (ADR 109), the delivery queue and its dead letters (ADR 070); a throw retries the batch.
export async function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const db = env.DB;
  if (batch.queue.endsWith("-exports")) {
    const ctx = { db, bucket: env.UPLOADS ?? null, queue: exportQueueOf(env), plan: settingsOf(env).plan, nowMs: Date.now() };
    console.log(JSON.stringify({ exportQueue: await appHooks.consumeExportBatch(batch, ctx) }));
    return;
  }
  if (batch.queue.endsWith("-dlq")) {
    const dead = await appHooks.consumeDeadLetters(batch, { db });
    console.log(JSON.stringify({ deadLetters: batch.messages.length, markedDead: dead }));
    return;
  }
  const report = await appHooks.consumeDeliveryBatch(batch, {
    db,
    settings: settingsOf(env),
    mailer: createMailer(env, EmailMessage),
  });
  console.log(JSON.stringify({ deliveryQueue: report }));
}
