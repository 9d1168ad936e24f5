// Request bodies for the submit-path benchmark. Every POST needs its own single-use stand-in token,
// and Gatepost's page posts also carry the hidden fields its form page renders (a signed stamp and a
// per-visit submission id), which are read once from the real page and reused, with a fresh id each time.
import { createHmac, randomUUID } from "node:crypto";

export const FIELDS = { name: "Bench Mark", email: "bench@example.org", message: "A message from the benchmark suite." };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A token the stand-in siteverify accepts once, for a widget with `action` on `hostname`. */
export function standinToken({ action = "contact", hostname = "127.0.0.1" } = {}) {
  const claims = { n: randomUUID(), a: action, h: hostname, t: new Date().toISOString() };
  return `XXXX.DUMMY.TOKEN.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
}

/** The name/value of every input inside the page's first POST form (hidden fields included). */
export function readFormInputs(html) {
  const form = /<form[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/i.exec(html)?.[1] ?? "";
  const inputs = {};
  for (const tag of form.match(/<input\b[^>]*>/gi) ?? []) {
    const name = /\sname="([^"]*)"/.exec(tag)?.[1];
    if (name) inputs[name] = (/\svalue="([^"]*)"/.exec(tag)?.[1] ?? "").replace(/&amp;/g, "&");
  }
  return inputs;
}

/**
 * Builds Gatepost page-post bodies for `formUrl`: its hidden inputs, the fields, a fresh id and token.
 * A v2 stamp is signed over the page's submission id (ADR 013), so with `signingSecret` each body gets
 * a fresh id and a stamp signed for it, as a fresh page view would; without it, every body keeps the
 * page's own id and stamp (one submission). A v1 stamp (Gatepost before it was bound) is reused.
 */
export async function gatepostBodies(formUrl, formId = "contact", { signingSecret } = {}) {
  const html = await (await fetch(formUrl)).text();
  const hidden = readFormInputs(html);
  const hostname = new URL(formUrl).hostname;
  const stampName = Object.keys(hidden).find((name) => /^v\d\./.test(hidden[name]));
  const bound = stampName !== undefined && hidden[stampName].startsWith("v2.");
  return () => {
    const body = { ...hidden, ...FIELDS };
    if (!bound || signingSecret) {
      // A per-visit id (an idempotency key) must differ per request, or the posts count as one.
      const sid = randomUUID();
      for (const [name, value] of Object.entries(hidden)) if (UUID.test(value)) body[name] = sid;
      if (bound) {
        // Issued a minute ago: older than any minimum fill time, well within the stamp's 24 hours.
        const issued = String(Date.now() - 60_000);
        const mac = createHmac("sha256", signingSecret).update(`v2.${formId}.${sid}.${issued}`).digest("base64url");
        body[stampName] = `v2.${issued}.${mac}`;
      }
    }
    body["cf-turnstile-response"] = standinToken({ action: formId, hostname });
    return new URLSearchParams(body).toString();
  };
}

/** Bodies for the baseline's minimal action: the fields and a token. */
export function baselineBodies(url) {
  const hostname = new URL(url).hostname;
  return () => new URLSearchParams({ ...FIELDS, "cf-turnstile-response": standinToken({ hostname }) }).toString();
}
