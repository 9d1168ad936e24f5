import type { EntryContext } from "@remix-run/cloudflare";
import escape from "escape-html";
import { errorCodeOf, FALLBACK_ERROR_CODE } from "~/lib/http/error-code";
import { ERRORS, isErrorCode, type ErrorCode } from "~/lib/http/errors";
import { EN_REFUSAL, type HtmlRefusalWords, type RefusalPage } from "~/lib/text/refusal-words";
import { fill } from "~/lib/text/fill";

// Every refusal is built here, each with its catalogue code in ERROR_CODE_HEADER whatever the body's format.

export const ERROR_CODE_HEADER = "Gatepost-Error-Code";

type FieldErrors = Record<string, string>;

/** A thrown refusal for document routes: the ErrorBoundary shows the catalogue message (or `page`'s). */
export function refusal(code: ErrorCode, page?: RefusalPage): Response {
  const { status } = ERRORS[code];
  const message = page?.message ?? ERRORS[code].message;
  return new Response(JSON.stringify(page ? { code, message, page } : { code, message }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", [ERROR_CODE_HEADER]: code },
  });
}

/** JSON for fetch callers and JSON bodies; HTML for a browser's own form navigation (and curl's default). */
export function wantsJson(request: Request): boolean {
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (type.startsWith("application/json") || /^[^;]*\+json/.test(type)) return true;
  if (/application\/(problem\+)?json/i.test(request.headers.get("accept") ?? "")) return true;
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

/** An RFC 9457 problem+json refusal with its catalogue code, per-field errors and `members`; `message` when localized. */
export function problemJson(
  code: ErrorCode,
  headers: Headers = new Headers(),
  fieldErrors?: FieldErrors,
  members: Record<string, unknown> = {},
  message: string = ERRORS[code].message,
): Response {
  const { status } = ERRORS[code];
  const body: Record<string, unknown> = { ...members, type: "about:blank", title: message, status, code };
  if (fieldErrors && Object.keys(fieldErrors).length > 0) {
    body.errors = Object.entries(fieldErrors).map(([field, detail]) => ({ field, detail }));
  }
  headers.set("content-type", "application/problem+json; charset=utf-8");
  headers.set("cache-control", "no-store");
  headers.set(ERROR_CODE_HEADER, code);
  return new Response(JSON.stringify(body), { status, headers });
}

/** A readable refusal page for a person whose plain HTML form on another site was refused. */
export function problemHtml(
  code: ErrorCode,
  form: { title: string; fields: readonly { name: string; label: string }[] } | null,
  headers: Headers = new Headers(),
  fieldErrors?: FieldErrors,
  words?: HtmlRefusalWords,
): Response {
  const { status } = ERRORS[code];
  const labels = new Map(form?.fields.map((f) => [f.name, f.label]) ?? []);
  const items = Object.entries(fieldErrors ?? {})
    .map(([name, detail]) => `<li><strong>${escape(labels.get(name) ?? name)}:</strong> ${escape(detail)}</li>`)
    .join("");
  const w = words ?? {
    lang: "en",
    dir: "ltr",
    message: ERRORS[code].message,
    title: form ? fill(EN_REFUSAL.titled, { title: form.title }) : EN_REFUSAL.notSent,
    nothingKept: EN_REFUSAL.nothingKept,
    errorCode: EN_REFUSAL.errorCode,
  };
  const { title, message } = w;
  const html = `<!doctype html>
<html lang="${escape(w.lang)}" dir="${w.dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)} — Gatepost</title>
<style>body{font:1.05rem/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.summary{border:3px solid #b00020;padding:.75rem 1rem}code{background:#eee;padding:0 .25rem}</style></head>
<body><main><h1>${escape(title)}</h1><div class="summary" role="alert"><p>${escape(message)}</p>${items ? `<ul>${items}</ul>` : ""}</div>
<p>${escape(w.nothingKept)}</p>
<p>${escape(w.errorCode)} <code>${escape(code)}</code></p></main></body></html>`;
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set("cache-control", "no-store");
  headers.set("x-content-type-options", "nosniff");
  headers.set(
    "content-security-policy",
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
  headers.set(ERROR_CODE_HEADER, code);
  return new Response(html, { status, headers });
}

/** The code for the error a route boundary is showing (the same the page shows), or null for none. */
export function boundaryErrorCode(context: EntryContext): ErrorCode | null {
  const errors = context.staticHandlerContext.errors;
  if (!errors) return null;
  const error = Object.values(errors)[0];
  return error === undefined ? null : errorCodeOf(error, isErrorCode);
}

/** The answer to a throw that escaped Remix (a bug), never its message. Never throws. */
export function unexpectedErrorResponse(request: Request): Response {
  return wantsJson(request) ? problemJson(FALLBACK_ERROR_CODE) : problemHtml(FALLBACK_ERROR_CODE, null);
}

// Remix's CSRF guard answers a cross-site POST to a page route with a bare 500; it is bad input, so this answers 403 first.
const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A 403 for a mutation of a page route from another origin (or a junk Origin); null to go on. */
export function refuseCrossSitePagePost(request: Request): Response | null {
  if (!MUTATIONS.has(request.method.toUpperCase())) return null;
  const url = new URL(request.url);
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/admin/api/")) return null;
  const origin = request.headers.get("Origin");
  if (origin === null) return null;
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() || request.headers.get("host") || url.host;
  let originHost: string | null = null;
  try {
    originHost = origin === "null" ? null : new URL(origin).host;
  } catch {
    originHost = null;
  }
  return originHost === host ? null : problemHtml("origin_not_allowed", null);
}
