// Request bodies for the submit benchmarks: each POST has its own single-use stand-in token, and Gatepost's page
// posts carry the hidden fields its page renders, read once and reused with a fresh id each time.
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
    if (/\stype="file"/i.test(tag)) continue;
    const name = /\sname="([^"]*)"/.exec(tag)?.[1];
    if (name) inputs[name] = (/\svalue="([^"]*)"/.exec(tag)?.[1] ?? "").replace(/&amp;/g, "&");
  }
  return inputs;
}

/** Gatepost page-post bodies for `formUrl`; with `signingSecret` each gets a fresh id and a stamp signed for it (ADR 013). */
export async function gatepostBodies(formUrl, formId = "contact", { signingSecret } = {}) {
  const makeFields = await gatepostFields(formUrl, formId, { signingSecret });
  return () => new URLSearchParams(makeFields()).toString();
}

/** gatepostBodies' fields as an object per post (for a multipart body), with `fields` as the visible ones. */
export async function gatepostFields(formUrl, formId = "contact", { signingSecret, fields = FIELDS } = {}) {
  const html = await (await fetch(formUrl)).text();
  const hidden = readFormInputs(html);
  const hostname = new URL(formUrl).hostname;
  const stampName = Object.keys(hidden).find((name) => /^v\d\./.test(hidden[name]));
  const bound = stampName !== undefined && hidden[stampName].startsWith("v2.");
  return () => {
    const body = { ...hidden, ...fields };
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
    return body;
  };
}

/** Bodies for the baseline's minimal action: the fields and a token; with `keyed`, a fresh `_sid` too (?guarded). */
export function baselineBodies(url, { keyed = false } = {}) {
  const hostname = new URL(url).hostname;
  return () =>
    new URLSearchParams({
      ...FIELDS,
      ...(keyed ? { _sid: randomUUID() } : {}),
      "cf-turnstile-response": standinToken({ hostname }),
    }).toString();
}

/** A PDF of exactly `size` bytes: a valid `%PDF-` header and filler that holds no multipart boundary. */
export function benchPdf(size) {
  const head = "%PDF-1.4\n%bench upload\n";
  const tail = "\n%%EOF\n";
  const line = "% filler line of the benchmark's generated PDF, never read by anyone ..........\n";
  const filler = line.repeat(Math.ceil(size / line.length)).slice(0, size - head.length - tail.length);
  return Buffer.from(head + filler + tail, "latin1");
}

/** multipart/form-data bodies of `makeFields()` and one file part, as { contentType, makeBody } for loadPost. */
export function multipartBodies(makeFields, file) {
  const boundary = `----gatepost-bench-${randomUUID()}`;
  const fileHead = Buffer.from(
    `--${boundary}\r\ncontent-disposition: form-data; name="${file.field}"; filename="${file.name}"\r\ncontent-type: ${file.type}\r\n\r\n`,
  );
  const end = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    makeBody: () => {
      const parts = Object.entries(makeFields()).map(
        ([name, value]) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      );
      return Buffer.concat([Buffer.from(parts.join("")), fileHead, file.bytes, end]);
    },
  };
}

/** The bare app's fields and a fresh token, as an object (for multipartBodies). */
export function baselineFields(url, fields = FIELDS) {
  const hostname = new URL(url).hostname;
  return () => ({ ...fields, "cf-turnstile-response": standinToken({ hostname }) });
}
