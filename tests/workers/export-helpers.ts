import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import worker from "../../functions/index";
import type { ExportMessage } from "~/lib/exports/queue.server";
import { adminGet } from "./admin-helpers";
import { appFetch } from "./helpers";

// Exports as the console runs them (docs/decisions/109): a request starts a job, the export queue
// carries it on, its address serves the file. Here the queue is a stand-in that keeps what is sent,
// and each message is handed to the Worker's own queue handler, as Cloudflare would.

/** A stand-in EXPORT_QUEUE that keeps what is sent. */
export function heldExportQueue() {
  const sent: ExportMessage[] = [];
  const queue = {
    send: async (body: ExportMessage) => void sent.push(body),
    sendBatch: async (batch: Iterable<{ body: ExportMessage }>) => void sent.push(...[...batch].map((m) => m.body)),
  } as unknown as Queue<ExportMessage>;
  return { sent, queue };
}

/** The Worker's queue handler given one message of the export queue. */
export async function deliverExportMessage(body: ExportMessage, appEnv: Env) {
  const batch = createMessageBatch<ExportMessage>("gatepost-exports", [{ id: "m", timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<unknown>, appEnv);
  return getQueueResult(batch, ctx);
}

/**
 * GET `path` (an export's start) with `cookie`, the queue's messages handed on until none is left,
 * then what the job's address answers (the file). A start refused answers as it was.
 */
export async function exportThrough(path: string, cookie: string, appEnv: Env): Promise<Response> {
  const { sent, queue } = heldExportQueue();
  const withQueue = { ...appEnv, EXPORT_QUEUE: queue } as Env;
  const started = await appFetch(adminGet(path, cookie), withQueue);
  if (started.status !== 202) return started;
  await started.arrayBuffer();
  for (let i = 0; sent.length > 0 && i < 200; i++) await deliverExportMessage(sent.shift()!, withQueue);
  return appFetch(adminGet(started.headers.get("location")!, cookie), withQueue);
}
