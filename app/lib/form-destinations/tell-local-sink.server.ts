import type { LocalSink } from "~/lib/settings/local-sink.server";

// Under `npm start` the local sink verifies webhooks, so each secret the console makes is told to it (ADR 066).

const TELL_TIMEOUT_MS = 2_000;

/** Tells the local sink the secrets that now sign `formId`'s webhooks. Best effort, never throws. */
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
    // Best effort: the secret is shown in the console either way.
  }
}
