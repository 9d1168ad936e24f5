import { linkedFiles } from "~/lib/sending/linked-files.server";
import { parseWebhookSecrets, type SigningKey } from "~/lib/sending/signature.server";
import { buildPayload, sendWebhook } from "~/lib/sending/standard-webhook.server";
import { defineSender, resolveUrl, type ResolvedDestination } from "~/lib/destinations/sender.server";

/** The webhook kind's sending half (its settings: spec.ts). */
export const sender = defineSender<ResolvedDestination & { url: string; keys: SigningKey[] }>({
  kind: "webhook",
  resolve(input) {
    const url = resolveUrl(input, "WEBHOOK_URL");
    if (!url.ok) return url;
    const secrets = parseWebhookSecrets(input.own.WEBHOOK_SECRET);
    if (!secrets.ok) return { ok: false, reason: `${input.variable("WEBHOOK_SECRET")}: ${secrets.reason}` };
    return { ok: true, destination: { kind: "webhook", name: input.name, url: url.url, keys: secrets.keys } };
  },
  async attempt(destination, { settings, form, claim, submission, nowMs, timeoutMs, fetch }) {
    const files = await linkedFiles(settings, form, submission, nowMs);
    const body = JSON.stringify(buildPayload(submission, files));
    return sendWebhook({ url: destination.url, keys: destination.keys, webhookId: claim.id, body, timeoutMs, fetch });
  },
});
