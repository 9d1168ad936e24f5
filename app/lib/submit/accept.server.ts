import type { FormDef } from "~/forms/schema";
import { checkOrigin } from "~/lib/http/cors.server";
import { expectedHostnames } from "~/lib/settings/turnstile.server";
import { ERRORS, type ErrorCode } from "~/lib/http/errors";
import { allowedOriginsFor, embedHostnamesFor, rateLimitsFor } from "~/lib/settings/form-guards.server";
import type { Settings } from "~/lib/settings/settings.server";
import { STAMP_FIELD, TOKEN_FIELD } from "~/lib/forms/field-names";
import { judgeApiPost, judgePagePost, type PageVerdict } from "~/lib/submit/honeypot.server";
import { signFormStamp } from "~/lib/submit/form-stamp.server";
import { fingerprintRequest, readIdempotencyKey, readSubmissionIdKey } from "~/lib/submit/idempotency.server";
import { findReplay, storeInOneTrip, type StoreOutcome } from "~/lib/storage/accept-batch.server";
import { clientIp, networkSubject } from "~/lib/http/client-ip.server";
import { formRateRules, refusedBy, type RateRule, type RateVerdict } from "~/lib/http/rate-limit.server";
import { submitLimiter, throttleBeforeProvider, throttleRuleOf } from "~/lib/http/client-throttle.server";
import { declaresTooLarge } from "~/lib/http/body-rules.server";
import { readBody } from "~/lib/http/request-body.server";
import { deliverLeasedAfterResponse, LEASE_MS } from "~/lib/delivery/drain.server";
import { deliveryQueueOf, enqueueClaims } from "~/lib/delivery/queue.server";
import { leasedOutbox } from "~/lib/delivery/outbox.server";
import { batchGate } from "~/lib/destinations/gates.server";
import type { Mailer } from "~/lib/sending/mailer.server";
import { verifyTurnstile } from "~/lib/turnstile/siteverify.server";
import { validateFields, type FieldErrors } from "~/lib/submit/validation";
import { messagesOf } from "~/lib/i18n/catalogue.server";
import type { Lang } from "~/lib/text/languages";
import { languagesOf, localizeForm } from "~/lib/i18n/localize-form";
import { describeFiles, fileTooLargeErrors, fingerprintValues, uploadLimitsOf, withFiles } from "~/lib/submit/accepted-files.server";
import { deleteFileObjects, putFileObjects, uploadsBucket, type FileToStore } from "~/lib/storage/file-objects.server";
import { budgetFor } from "~/lib/platform/budget.server";
import { akismetSettingsOf } from "~/lib/spam/akismet.server";
import { judgeSpam, spamBatchParts } from "~/lib/spam/judge.server";

// The one path every submission takes, page and API alike: body size → origin → body → stamp and honeypot →
// schema → throttle (ADR 028) → Turnstile → files to R2 (ADR 050) → one atomic D1 batch (ADR 012) → answer.

/** The throttle's window: the Workers Rate Limiting binding counts in windows of 10 or 60 s. */
const THROTTLE_PERIOD_SECONDS = 60;

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
      rate?: RateInfo;
      /** The stamp and submission id a page post's re-render must carry (its own, or fresh ones once expired). */
      keep?: { stamp: string; sid: string | null };
    };

export interface AcceptInput {
  request: Request;
  form: FormDef;
  formVersion: string;
  env: Env;
  settings: Settings;
  channel: Channel;
  ctx: { waitUntil(promise: Promise<unknown>): void };
  mailer: Mailer | null;
  now: () => number;
  lang?: Lang;
}

/** Runs the accept pipeline. Expected refusals come back as codes; it throws only on bugs. */
export async function acceptSubmission(input: AcceptInput): Promise<AcceptResult> {
  const { request, form, formVersion, env, settings, ctx, mailer, channel, now } = input;
  const lang = input.lang ?? languagesOf(form)[0]!;
  // Checks on headers alone come first: a post refused by them is never read or parsed.
  const uploads = uploadLimitsOf(form);
  const declared = declaresTooLarge(request, uploads);
  if (declared) return { ok: false, code: declared };
  const formSettings = settings.forms;
  const origin = checkOrigin(request, allowedOriginsFor(form, formSettings));
  if (!origin.ok) return { ok: false, code: origin.code };
  // Without the secret a page post can never prove its stamp; refuse rather than guess (fail closed).
  const secret = formSettings.signingSecret;
  if (channel === "page" && !secret) return { ok: false, code: "form_signing_secret_missing" };
  const body = await readBody(request, uploads);
  if (!body.ok) return { ok: false, code: body.code, fieldErrors: fileTooLargeErrors(form, body.field) };
  const { fields } = body;
  // A page post's key is its stamp's submission id: a header key would let one harvested stamp buy many.
  const key = channel === "page" ? readSubmissionIdKey(fields) : readIdempotencyKey(request, fields);
  if (!key.ok) return { ok: false, code: key.code };

  const judged: PageVerdict =
    channel === "page"
      ? await judgePagePost({ fields, secret: secret!, formId: form.id, minFillMs: formSettings.minFillMs, nowMs: now() })
      : judgeApiPost(fields);
  // The answers come back on a freshly stamped page; only a stamp this server signed is dated back (honeypot.server.ts).
  if ("expired" in judged)
    return { ok: false, code: "form_expired", values: echoOf(form, fields), keep: await freshRender(form, settings, judged.signed, now()) };
  const keep = channel === "page" && !judged.bot ? { stamp: String(fields[STAMP_FIELD]), sid: key.key } : undefined;

  const { page, validation: texts } = messagesOf(lang);
  const validation = validateFields(localizeForm(form, lang), fields, body.files, { lang, page, validation: texts });
  if (!validation.ok) return { ok: false, code: "validation_failed", fieldErrors: validation.errors, values: validation.values, keep };
  const echo = Object.fromEntries(Object.entries(validation.values).map(([k, v]) => [k, v === null ? "" : String(v)]));
  // Files with nowhere to go are refused before the provider is asked, so the token is not spent.
  const bucket = uploadsBucket(env);
  if (validation.files.length > 0 && !bucket) return { ok: false, code: "uploads_not_configured", values: echo, keep };
  const limits = rateLimitsFor(form, formSettings);
  const ip = clientIp(request);
  const rules = formRateRules(form.id, limits, ip);

  // Before the provider and without D1, so a refused post keeps its unsent token.
  const fallback = { limit: 2 * limits.perMinute, periodSeconds: THROTTLE_PERIOD_SECONDS };
  const throttleKey = `submit:${form.id}:${networkSubject(ip)}`;
  if (!(await throttleBeforeProvider(submitLimiter(env, fallback, now), throttleKey))) {
    const { limit, periodSeconds } = throttleRuleOf(env, fallback);
    const rule = { key: throttleKey, limit, windowSeconds: periodSeconds, policy: "burst" };
    return { ok: false, code: "rate_limited", values: echo, keep, rate: { verdict: refusedBy(rule, periodSeconds), rules: [rule] } };
  }

  // A bot still has to pass Turnstile: nothing is stored without a verified token, and it sees a human's answers.
  const verdict = await verifyTurnstile({
    token: fields[TOKEN_FIELD],
    secret: settings.turnstile.secretKey,
    verifyUrl: settings.turnstile.verifyUrl,
    remoteIp: ip,
    expectedAction: form.id,
    expectedHostnames: expectedHostnames(settings.turnstile, request, embedHostnamesFor(form, formSettings)),
  });
  // Read after the provider's answer, which may take seconds: the hit counts in the window it lands in.
  const nowMs = now();
  const mayStore = verdict.ok || verdict.code === "turnstile_expired_or_duplicate";
  const described = mayStore ? await describeFiles(validation.files, nowMs) : [];
  const values = withFiles(form, validation.values, described);
  const fingerprint = key.key && mayStore ? await fingerprintRequest(form.id, fingerprintValues(values)) : null;
  if (!verdict.ok) {
    // A repeat whose token the first request spent: only this path pays a look-up of the key.
    if (verdict.code === "turnstile_expired_or_duplicate" && key.key && fingerprint) {
      const replay = await findReplay(env.DB, { rules, nowMs, formId: form.id, key: key.key, fingerprint });
      if (replay && replay.kind !== "failed") return answer(replay, rules, echo, await keepFor(replay, keep, form, settings, nowMs));
    }
    if (ERRORS[verdict.code].status >= 500) {
      console.error(`Turnstile verification unavailable for form ${form.id}: ${verdict.code} (${verdict.detail ?? ""})`);
    }
    return { ok: false, code: verdict.code, values: echo, keep };
  }

  const budget = budgetFor(settings.plan);
  const akismet = akismetSettingsOf(env, settings.publicUrl ?? new URL(request.url).origin);
  const spam = judged.bot ? null : await judgeSpam({ db: env.DB, form, values, request, ip, lang, nowMs, akismet, budget });
  if (spam?.kind === "refuse") return { ok: false, code: spam.code, values: echo, keep };
  const quarantineReason = judged.bot ? judged.reason : (spam?.reason ?? undefined);

  // The one round trip. Outbox rows are inserted already leased to this request; a quarantined post gets none.
  const id = crypto.randomUUID();
  const owner = `accept:${id}`;
  const spamParts = spamBatchParts(env.DB, id, spam);
  // ADR 025.
  const gate = quarantineReason ? null : await batchGate(settings, form, values, ip);
  const outbox = quarantineReason
    ? { deliveries: [], confirmation: null, hooks: null, claims: [] }
    : leasedOutbox(env.DB, settings, form, id, nowMs, owner, LEASE_MS, gate);
  // A bot's post keeps its files' names and digests but never their bytes (docs/decisions/050); spam keeps them.
  const stored: FileToStore[] = judged.bot ? [] : described;
  if (stored.length > 0 && !(await putFileObjects(bucket!, id, stored))) {
    return { ok: false, code: "uploads_unavailable", values: echo, keep };
  }
  const outcome = await storeInOneTrip(
    env.DB,
    {
      rules,
      nowMs,
      key: key.key,
      fingerprint,
      outbox,
      submission: {
        id,
        formId: form.id,
        formVersion,
        lang,
        fields: values,
        verification: { hostname: verdict.hostname, action: verdict.action, challengeTs: verdict.challengeTs },
        quarantineReason,
      },
      beside: spamParts.statements,
    },
    { budget },
  );
  if (outcome.kind === "stored") spamParts.afterStore(outcome.beside, (p) => ctx.waitUntil(p));
  // A refused batch's files go now; a failed one's stay for the sweep, since D1 may have stored it.
  if (stored.length > 0 && outcome.kind !== "stored" && outcome.kind !== "failed") {
    await deleteFileObjects(
      bucket!,
      stored.map((f) => f.file.id),
    ).catch((error) => console.error(`removing the files of refused submission ${id} failed; the sweep will:`, error));
  }
  // The first attempt runs after the response, here or in the queue's consumer (ADR 070); the cron covers misses.
  const due = outcome.kind === "stored" ? [...outbox.claims, ...outcome.added].filter((claim) => !outcome.settled.has(claim.id)) : [];
  if (outcome.kind === "stored" && due.length > 0) {
    const stored = outcome.stored;
    const queue = deliveryQueueOf(env);
    const here = () => deliverLeasedAfterResponse(env.DB, settings, form, stored, due, owner, { mailer, now });
    ctx.waitUntil(queue ? enqueueClaims(queue, due, owner).then((queued) => (queued ? null : here())) : here());
  }
  return answer(outcome, rules, echo, await keepFor(outcome, keep, form, settings, nowMs));
}

type Keep = { stamp: string; sid: string | null };

async function keepFor(
  outcome: StoreOutcome,
  keep: Keep | undefined,
  form: FormDef,
  settings: Settings,
  nowMs: number,
): Promise<Keep | undefined> {
  return outcome.kind === "key_reused" && keep ? freshRender(form, settings, true, nowMs) : keep;
}

/** A new submission id and stamp; `filledOnce` dates it back by the minimum fill time, so a resend is not a bot's haste. */
async function freshRender(form: FormDef, settings: Settings, filledOnce: boolean, nowMs: number): Promise<Keep> {
  const sid = crypto.randomUUID();
  const issued = nowMs - (filledOnce ? settings.forms.minFillMs : 0);
  return { stamp: await signFormStamp(settings.forms.signingSecret!, form.id, sid, issued), sid };
}

function answer(outcome: StoreOutcome, rules: RateRule[], values: Record<string, string>, keep: Keep | undefined): AcceptResult {
  if (outcome.kind === "failed") return { ok: false, code: "storage_unavailable", values, keep };
  const rate = { verdict: outcome.verdict, rules };
  switch (outcome.kind) {
    case "stored":
      return { ok: true, id: outcome.stored.id, replayed: false, rate };
    case "replayed":
      return { ok: true, id: outcome.id, replayed: true, rate };
    case "key_reused":
      return { ok: false, code: "idempotency_key_reused", values, rate, keep };
    case "rate_limited":
      return { ok: false, code: "rate_limited", values, rate, keep };
  }
}

function echoOf(form: FormDef, fields: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(form.fields.map((f) => [f.name, typeof fields[f.name] === "string" ? (fields[f.name] as string) : ""]));
}
