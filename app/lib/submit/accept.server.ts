import type { FormDef } from "~/forms/schema";
import { checkOrigin } from "~/lib/http/cors.server";
import { clientIp, expectedHostnames } from "~/lib/settings/turnstile.server";
import { ERRORS, type ErrorCode } from "~/lib/http/errors";
import { allowedOriginsFor, rateLimitsFor } from "~/lib/settings/forms.server";
import type { Settings } from "~/lib/settings/settings.server";
import { STAMP_FIELD, TOKEN_FIELD } from "~/lib/submit/field-names";
import { judgeApiPost, judgePagePost, type HoneypotVerdict } from "~/lib/submit/honeypot.server";
import { findKeyedSubmission, keyLookup, readIdempotencyKey } from "~/lib/submit/idempotency.server";
import { formRateRules, hitRateLimitsWith, type RateRule, type RateVerdict } from "~/lib/http/rate-limit.server";
import { readBody } from "~/lib/http/request-body.server";
import { deliverLeasedAfterResponse, LEASE_MS } from "~/lib/delivery/delivery.server";
import { leasedOutbox } from "~/lib/delivery/outbox.server";
import { storeSubmission } from "~/lib/storage/submissions.server";
import { verifyTurnstile } from "~/lib/turnstile/siteverify.server";
import { validateFields, type FieldErrors } from "~/lib/submit/validation";

// The one path every submission takes, from Gatepost's own page and the public API alike:
// body size → origin → rate limit (+ idempotency lookup) → honeypot → schema → Turnstile → store.
// Every abuse control runs before the provider is called; a form with errors never spends the token;
// nothing is stored unless the provider said yes. D1 sees two round trips: the rate-limit count
// (whose one statement also looks the idempotency key up) and the one atomic store batch; the first delivery adds
// one more after the answer (docs/decisions/007-accept-path-costs.md).

/** Where a post comes from: Gatepost's rendered page (signed stamp required) or another site via the API. */
export type Channel = "page" | "api";

export interface RateInfo {
  verdict: RateVerdict;
  rules: RateRule[];
}

export type AcceptResult =
  | {
      ok: true;
      id: string;
      /** True when an earlier request with the same idempotency key already stored it. */
      replayed: boolean;
      rate: RateInfo;
    }
  | {
      ok: false;
      code: ErrorCode;
      fieldErrors?: FieldErrors;
      values?: Record<string, string>;
      /** Present once the rate limit was counted, so every later answer can carry its headers. */
      rate?: RateInfo;
      /** A page post's own stamp and submission id, echoed so a corrected re-post keeps them. */
      keep?: { stamp: string; sid: string | null };
    };

export interface AcceptInput {
  request: Request;
  form: FormDef;
  env: Env;
  /** Parsed once for this request (getLoadContext). */
  settings: Settings;
  channel: Channel;
  /** For work after the response (first webhook delivery). */
  ctx: { waitUntil(promise: Promise<unknown>): void };
}

/** Runs the accept pipeline. Expected refusals come back as codes; it throws only on bugs. */
export async function acceptSubmission({ request, form, env, settings, ctx, channel }: AcceptInput): Promise<AcceptResult> {
  const body = await readBody(request);
  if (!body.ok) return { ok: false, code: body.code };
  const { fields } = body;

  const formSettings = settings.forms;
  const origin = checkOrigin(request, allowedOriginsFor(form, formSettings));
  if (!origin.ok) return { ok: false, code: origin.code };
  // Without the secret a page post can never prove its stamp; refuse rather than guess (fail closed).
  if (channel === "page" && !formSettings.signingSecret) return { ok: false, code: "form_signing_secret_missing" };
  const key = readIdempotencyKey(request, fields);
  if (!key.ok) return { ok: false, code: key.code };

  // Round trip 1: count this hit and look the idempotency key up in the same statement.
  const rules = formRateRules(form.id, rateLimitsFor(form, formSettings), clientIp(request));
  const gate = await hitRateLimitsWith(env.DB, rules, key.key ? keyLookup(form.id, key.key) : null);
  if (!gate.ok) return { ok: false, code: gate.code };
  const rate = { verdict: gate.verdict, rules };
  // A repeat gets the first answer before its (already spent) token is checked again, even over the
  // limit: a client retrying after a lost answer must learn it was accepted, not that it was refused.
  const earlier = typeof gate.lookedUp === "string" ? gate.lookedUp : null;
  if (earlier) return { ok: true, id: earlier, replayed: true, rate };
  if (!gate.verdict.ok) return { ok: false, code: "rate_limited", rate };

  const honeypot: HoneypotVerdict =
    channel === "page"
      ? await judgePagePost({
          fields,
          secret: formSettings.signingSecret!,
          formId: form.id,
          minFillMs: formSettings.minFillMs,
        })
      : judgeApiPost(fields);
  // Only a rendered form's own _gp_sid is echoed back into the page, never an Idempotency-Key header.
  const sid = request.headers.has("Idempotency-Key") ? null : key.key;
  const keep = channel === "page" && !honeypot.bot ? { stamp: String(fields[STAMP_FIELD]), sid } : undefined;

  const validation = validateFields(form, fields);
  if (!validation.ok) {
    return { ok: false, code: "validation_failed", fieldErrors: validation.errors, values: validation.values, rate, keep };
  }
  const echo = Object.fromEntries(Object.entries(validation.values).map(([k, v]) => [k, v === null ? "" : String(v)]));

  // A bot is judged above but still has to pass Turnstile: nothing is ever stored without a verified
  // token, and a bot sees exactly the answers a human would.
  const verdict = await verifyTurnstile({
    token: fields[TOKEN_FIELD],
    secret: settings.turnstile.secretKey,
    verifyUrl: settings.turnstile.verifyUrl,
    remoteIp: clientIp(request),
    expectedAction: form.id,
    expectedHostnames: expectedHostnames(settings.turnstile, request),
  });
  if (!verdict.ok) {
    if (ERRORS[verdict.code].status >= 500) {
      console.error(`Turnstile verification unavailable for form ${form.id}: ${verdict.code} (${verdict.detail ?? ""})`);
    }
    return { ok: false, code: verdict.code, values: echo, rate, keep };
  }

  // Round trip 2: the submission, its idempotency key and its outbox rows in one atomic batch, so
  // "accepted" always means "queued for every destination" (issue 3). A quarantined bot gets no rows.
  // The rows are inserted already leased to this request, which makes the first attempt itself.
  const id = crypto.randomUUID();
  const owner = `accept:${id}`;
  const outbox = honeypot.bot
    ? { statements: [], claims: [] }
    : leasedOutbox(env.DB, settings, form, id, Date.now(), owner, LEASE_MS);
  const stored = await storeSubmission(
    env.DB,
    {
      id,
      formId: form.id,
      fields: validation.values,
      verification: { hostname: verdict.hostname, action: verdict.action, challengeTs: verdict.challengeTs },
      quarantineReason: honeypot.bot ? honeypot.reason : undefined,
    },
    { idempotencyKey: key.key, also: outbox.statements },
  );
  if (!stored.ok && stored.keyConflict && key.key) {
    // A concurrent twin stored first: answer as it did. Only this rare race costs a third round trip.
    const twin = await findKeyedSubmission(env.DB, form.id, key.key).catch(() => null);
    if (twin) return { ok: true, id: twin, replayed: true, rate };
  }
  if (!stored.ok) return { ok: false, code: stored.code, values: echo, rate, keep };
  // The first attempt runs after the response; the scheduled drain covers anything it misses.
  if (outbox.claims.length > 0) ctx.waitUntil(deliverLeasedAfterResponse(env.DB, settings, stored.stored, outbox.claims, owner));
  return { ok: true, id: stored.id, replayed: false, rate };
}
