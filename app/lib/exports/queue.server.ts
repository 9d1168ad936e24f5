import { z } from "zod";

// The export queue (ADR 109): each message carries one job one step on with a whole invocation's budget; a lost
// message loses nothing, since the cron carries on an idle job.

export interface ExportMessage {
  exportJob: string;
}
export const ExportMessageSchema = z.object({ exportJob: z.string().min(1).max(100) });

/** The EXPORT_QUEUE binding when the Worker has one, else null: the cron then carries jobs on alone. */
export function exportQueueOf(env: object): Queue<ExportMessage> | null {
  const queue = (env as { EXPORT_QUEUE?: Partial<Queue<ExportMessage>> }).EXPORT_QUEUE;
  return queue && typeof queue.send === "function" ? (queue as Queue<ExportMessage>) : null;
}

/** Asks the queue to carry job `id` on; false (logged) when there is no queue or it refused (the cron then does). */
export async function sendExportStep(queue: Queue<ExportMessage> | null, id: string, delaySeconds = 0): Promise<boolean> {
  if (!queue) return false;
  try {
    await queue.send({ exportJob: id }, { contentType: "json", ...(delaySeconds > 0 ? { delaySeconds } : {}) });
    return true;
  } catch (error) {
    console.error(`sending export job ${id} to the export queue failed; the cron carries it on:`, error);
    return false;
  }
}
