import { env } from "cloudflare:test";
import { contactForm } from "~/forms/contact";
import type { Mailer, OutgoingEmail } from "~/lib/delivery/mailer.server";
import { outboxStatements } from "~/lib/delivery/outbox.server";
import type { Settings } from "~/lib/settings/settings.server";
import { storeInOneTrip } from "~/lib/storage/accept-batch.server";

// Outbox fixtures shared by the budget, pause and replay tests: due rows stored as the accept path
// stores them, a receiver whose answers a test switches, and a mailer that keeps what it sent.

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
