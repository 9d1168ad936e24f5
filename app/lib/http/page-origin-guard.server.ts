import { problemHtml } from "~/lib/http/api-response.server";

// Remix refuses a cross-site POST to a page route by throwing before any route code runs, which
// answers a bare 500 (a CSRF guard in @remix-run/server-runtime). A post from another site is bad
// input, not a server fault, so this check runs first and answers 403 origin_not_allowed instead.
// Other sites post to /api/forms/:formId/submissions, which has its own allowlist and CORS.

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A 403 for a mutation of a page route from another origin (or a junk Origin); null to go on. */
export function refuseCrossSitePagePost(request: Request): Response | null {
  if (!MUTATIONS.has(request.method.toUpperCase())) return null;
  const url = new URL(request.url);
  if (url.pathname.startsWith("/api/")) return null;
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
