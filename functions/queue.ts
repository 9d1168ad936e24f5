import { EmailMessage } from "cloudflare:email";
import { settingsOf } from "../app/lib/settings/settings.server";
import { createMailer } from "../load-context";
import { appHooks } from "./server-build";

// The delivery queue's consumer (docs/decisions/070), bound only when wrangler.toml declares
// DELIVERY_QUEUE: its dead-letter queue (a name ending in -dlq) marks deliveries dead, the queue itself
// sends them. Each invocation keeps to the plan's budget; a throw makes the queue retry the batch.
export async function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const db = env.DB;
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
