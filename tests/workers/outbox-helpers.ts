import { env } from "cloudflare:test";
import { expect } from "vitest";
import { contactForm } from "~/forms/contact";
import type { Mailer, OutgoingEmail } from "~/lib/sending/mailer.server";
import { outboxStatements } from "~/lib/delivery/outbox.server";
import { drainOutbox } from "~/lib/delivery/drain.server";
import { parseSettings, type Settings } from "~/lib/settings/settings.server";
import { storeInOneTrip } from "~/lib/storage/accept-batch.server";
import { loadSubmissionDetail } from "~/lib/storage/console-queries.server";
import { appFetch, at, formPost, standinToken } from "./helpers";

// Outbox fixtures shared by the budget, pause and replay tests: due rows stored as the accept path
// stores them, a receiver whose answers a test switches, a mailer that keeps what it sent, and a
// submission accepted then drained through a stand-in's fetch.

/** `n` contact submissions with every configured delivery due at `nowMs`, none tried yet; their ids. */
export async function storeDue(n: number, settings: Settings, nowMs: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = crypto.randomUUID();
    const stored = await storeInOneTrip(env.DB, {
      rules: [],
      nowMs,
      submission: {
        id,
        formId: "contact",
        fields: { name: "Ada", email: "ada@example.org", message: `message #${i}` },
        verification: null,
      },
      key: null,
      fingerprint: null,
      outbox: { deliveries: outboxStatements(env.DB, settings, contactForm, id, nowMs), confirmation: null },
    });
    if (stored.kind !== "stored") throw new Error(`storing submission ${i} failed: ${stored.kind}`);
    ids.push(id);
  }
  return ids;
}

/** A receiver that answers 503 while `up` is false, else 200, and keeps each webhook-id it was sent. */
export function switchableReceiver() {
  const receiver = {
    up: true,
    seen: [] as string[],
    fetch: (async (_input: RequestInfo | URL, init?: RequestInit) => {
      receiver.seen.push(String((init?.headers as Record<string, string> | undefined)?.["webhook-id"] ?? "?"));
      return new Response(receiver.up ? "ok" : "down for maintenance", { status: receiver.up ? 200 : 503 });
    }) as typeof fetch,
  };
  return receiver;
}

/** A Mailer that keeps every message. */
export function keepingMailer(): Mailer & { sent: OutgoingEmail[] } {
  const mailer = {
    sent: [] as OutgoingEmail[],
    async send(message: OutgoingEmail) {
      mailer.sent.push(message);
    },
  };
  return mailer;
}

export async function deliveryRows(): Promise<Array<Record<string, any>>> {
  const { results } = await env.DB.prepare("SELECT * FROM deliveries ORDER BY created_at, id").all<Record<string, any>>();
  return results;
}

/**
 * Posts the contact form with `fields`, then drains once the answer's own attempt has come due again,
 * with `fetch` (a stand-in of a service the Worker cannot reach here). The submission's deliveries.
 */
export async function acceptThenDrain(appEnv: Env, fields: Record<string, string>, fetch: typeof globalThis.fetch) {
  const res = await appFetch(formPost("/f/contact", { ...fields, "cf-turnstile-response": standinToken() }), appEnv);
  expect(res.status).toBe(303);
  const id = (res.headers.get("location") ?? "").split("/").pop()!;
  const due = await env.DB.prepare("SELECT MAX(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'").first<{
    due: number | null;
  }>();
  await drainOutbox(env.DB, parseSettings(appEnv as unknown as Record<string, string>), {
    mailer: null,
    fetch,
    now: at((due?.due ?? Date.now()) + 1),
  });
  return { id, deliveries: (await loadSubmissionDetail(env.DB, id))?.deliveries ?? [] };
}
