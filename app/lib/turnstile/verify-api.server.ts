import { ERROR_CODE_HEADER, problemJson } from "~/lib/http/responses.server";
import { checkOrigin } from "~/lib/http/cors.server";
import { expectedHostnames, type TurnstileSettings } from "~/lib/settings/turnstile.server";
import { ERRORS } from "~/lib/http/errors";
import { clientIp, ipSubject } from "~/lib/http/client-ip.server";
import { rateLimitHeaders, type RateRule } from "~/lib/http/rate-limit.server";
import { hitRateLimits } from "~/lib/storage/rate-limits.server";
import { readBody } from "~/lib/http/request-body.server";
import { verifyTurnstile } from "~/lib/turnstile/siteverify.server";

// POST /api/turnstile/verify: another backend checks a token with the forms' fail-closed verifier.
// Meant for servers: no CORS headers, and a cross-origin browser call is refused.

export const VERIFY_RATE_LIMITS = { perMinute: 60, perDay: 1000 };
const MAX_ACTION_LENGTH = 32;

function verifyRules(ip: string | null): RateRule[] {
  const key = `verify:ip:${ipSubject(ip)}`;
  return [
    { key, limit: VERIFY_RATE_LIMITS.perMinute, windowSeconds: 60 },
    { key, limit: VERIFY_RATE_LIMITS.perDay, windowSeconds: 86_400 },
  ];
}

/** A verdict on the token is 200 in siteverify's shape; refusals of the call are problem+json. Never throws. */
export async function answerVerifyCall(
  request: Request,
  db: D1Database,
  settings: TurnstileSettings,
  now: () => number = Date.now,
): Promise<Response> {
  // Headers first: a call from another origin is refused before its body is read.
  if (!checkOrigin(request, []).ok) return problemJson("origin_not_allowed");
  const body = await readBody(request);
  if (!body.ok) return problemJson(body.code);

  const rules = verifyRules(clientIp(request));
  const rate = await hitRateLimits(db, rules, now());
  if (!rate.ok && "code" in rate) return problemJson(rate.code);
  const headers = rateLimitHeaders(rate, rules);
  if (!rate.ok) return problemJson("rate_limited", headers);

  const { token, action } = body.fields;
  if (action !== undefined && action !== null && (typeof action !== "string" || action.length > MAX_ACTION_LENGTH)) {
    return problemJson("malformed_body", headers);
  }
  const verdict = await verifyTurnstile({
    token,
    secret: settings.secretKey,
    verifyUrl: settings.verifyUrl,
    remoteIp: clientIp(request),
    expectedAction: typeof action === "string" && action !== "" ? action : null,
    expectedHostnames: expectedHostnames(settings, request),
  });
  headers.set("content-type", "application/json; charset=utf-8");
  headers.set("cache-control", "no-store");
  if (verdict.ok) {
    const answer = {
      success: true,
      hostname: verdict.hostname,
      action: verdict.action,
      challenge_ts: verdict.challengeTs,
      error_codes: [],
    };
    return new Response(JSON.stringify(answer), { status: 200, headers });
  }
  // Gatepost's own trouble (provider down, secret missing) is not a verdict on the token: the caller
  // gets a 5xx problem and must fail closed too.
  if (ERRORS[verdict.code].status >= 500) {
    console.error(`Turnstile verification unavailable for the verify endpoint: ${verdict.code} (${verdict.detail ?? ""})`);
    return problemJson(verdict.code, headers);
  }
  headers.set(ERROR_CODE_HEADER, verdict.code);
  const answer = { success: false, hostname: null, action: null, challenge_ts: null, error_codes: [verdict.code] };
  return new Response(JSON.stringify(answer), { status: 200, headers });
}
