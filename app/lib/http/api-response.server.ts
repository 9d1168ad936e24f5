import type { FormDef } from "~/forms/schema";
import { ERRORS, type ErrorCode } from "~/lib/http/errors";
import type { FieldErrors } from "~/lib/submit/validation";

// The answers of the public API: JSON for scripts (RFC 9457 problem details on refusal), and for a
// plain HTML post from another site a 303 on success or a small readable page otherwise. Every
// refusal carries its catalogue code in ERROR_CODE_HEADER, whatever the body's format.

export const ERROR_CODE_HEADER = "Gatepost-Error-Code";

/** JSON for fetch callers and JSON bodies; HTML for a browser's own form navigation (and curl's default). */
export function wantsJson(request: Request): boolean {
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (type.startsWith("application/json") || /^[^;]*\+json/.test(type)) return true;
  if (/application\/(problem\+)?json/i.test(request.headers.get("accept") ?? "")) return true;
  // Browsers say "navigate" for a form post; fetch() says cors, no-cors or same-origin.
  const mode = request.headers.get("sec-fetch-mode");
  return mode !== null && mode !== "navigate";
}

/** 201 with the submission's id; a replay gives the same body and says so in a header. */
export function acceptedJson(id: string, replayed: boolean, headers: Headers): Response {
  headers.set("content-type", "application/json; charset=utf-8");
  headers.set("cache-control", "no-store");
  if (replayed) headers.set("Idempotent-Replayed", "true");
  return new Response(JSON.stringify({ id, status: "accepted" }), { status: 201, headers });
}

/** An application/problem+json refusal with the catalogue code and, for validation, per-field errors. */
export function problemJson(code: ErrorCode, headers: Headers = new Headers(), fieldErrors?: FieldErrors): Response {
  const { status, message } = ERRORS[code];
  const body: Record<string, unknown> = { type: "about:blank", title: message, status, code };
  if (fieldErrors && Object.keys(fieldErrors).length > 0) {
    body.errors = Object.entries(fieldErrors).map(([field, detail]) => ({ field, detail }));
  }
  headers.set("content-type", "application/problem+json; charset=utf-8");
  headers.set("cache-control", "no-store");
  headers.set(ERROR_CODE_HEADER, code);
  return new Response(JSON.stringify(body), { status, headers });
}

/** A readable refusal page for a person whose plain HTML form on another site was refused. */
export function problemHtml(code: ErrorCode, form: FormDef | null, headers: Headers = new Headers(), fieldErrors?: FieldErrors): Response {
  const { status, message } = ERRORS[code];
  const labels = new Map(form?.fields.map((f) => [f.name, f.label]) ?? []);
  const items = Object.entries(fieldErrors ?? {})
    .map(([name, detail]) => `<li><strong>${escape(labels.get(name) ?? name)}:</strong> ${escape(detail)}</li>`)
    .join("");
  const title = form ? `${form.title}: not sent` : "Not sent";
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)} — Gatepost</title>
<style>body{font:1.05rem/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.summary{border:3px solid #b00020;padding:.75rem 1rem}code{background:#eee;padding:0 .25rem}</style></head>
<body><main><h1>${escape(title)}</h1><div class="summary" role="alert"><p>${escape(message)}</p>${items ? `<ul>${items}</ul>` : ""}</div>
<p>Nothing was kept. Go back with your browser's Back button, correct what is listed and send the form again.</p>
<p>Error code: <code>${escape(code)}</code></p></main></body></html>`;
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set("cache-control", "no-store");
  headers.set("x-content-type-options", "nosniff");
  // The page needs nothing but its own inline style: no scripts, frames, forms or other loads.
  headers.set("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  headers.set(ERROR_CODE_HEADER, code);
  return new Response(html, { status, headers });
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
