// Request bodies for the submit-path benchmark. Every POST needs its own single-use stand-in token,
// and Gatepost's page posts also carry the hidden fields its form page renders (a signed stamp and a
// per-visit submission id), which are read once from the real page and reused, with a fresh id each time.
import { randomUUID } from "node:crypto";

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

/** Builds Gatepost page-post bodies for `formUrl`: its hidden inputs, the fields, a fresh id and token. */
export async function gatepostBodies(formUrl, formId = "contact") {
  const html = await (await fetch(formUrl)).text();
  const hidden = readFormInputs(html);
  const hostname = new URL(formUrl).hostname;
  return () => {
    const body = { ...hidden, ...FIELDS };
    // A per-visit id (an idempotency key) must differ per request, or the posts count as one.
    for (const [name, value] of Object.entries(hidden)) if (UUID.test(value)) body[name] = randomUUID();
    body["cf-turnstile-response"] = standinToken({ action: formId, hostname });
    return new URLSearchParams(body).toString();
  };
}

/** Bodies for the baseline's minimal action: the fields and a token. */
export function baselineBodies(url) {
  const hostname = new URL(url).hostname;
  return () => new URLSearchParams({ ...FIELDS, "cf-turnstile-response": standinToken({ hostname }) }).toString();
}
