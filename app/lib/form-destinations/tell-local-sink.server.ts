import type { LocalSink } from "~/lib/settings/local-sink.server";

// Under `npm start` the local sink verifies webhooks as a receiver would, so it must know the secrets the
// console makes: each change is told to it on loopback (docs/decisions/066-console-forms-in-the-local-loop.md).
// A deployed Worker has no local sink (settings/local-sink.server.ts), so this sends nothing there.

const TELL_TIMEOUT_MS = 2_000;

/**
 * Tells the local sink the secrets that now sign `formId`'s webhooks (space-separated; "" when the
 * console has none). Best effort, never throws: without a sink listening nothing else changes.
 */
export async function tellLocalSink(sink: LocalSink | null, formId: string, secrets: string, doFetch: typeof fetch = fetch): Promise<void> {
  if (!sink) return;
  try {
    const response = await doFetch(`${sink.origin}/console-secrets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ form: formId, secrets }),
      signal: AbortSignal.timeout(TELL_TIMEOUT_MS),
    });
    await response.body?.cancel();
  } catch {
    // The sink is a local convenience; the secret is shown in the console either way.
  }
}
