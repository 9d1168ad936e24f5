import type { FormDef } from "~/forms/schema";
import { clientIp, expectedHostnames, readSettings } from "~/lib/env.server";
import { ERRORS, type ErrorCode } from "~/lib/errors";
import { readBody } from "~/lib/request-body.server";
import { deliverSubmissionNow } from "~/lib/delivery.server";
import { outboxStatements } from "~/lib/outbox.server";
import { storeSubmission } from "~/lib/submissions.server";
import { verifyTurnstile } from "~/lib/turnstile.server";
import { validateFields, type FieldErrors } from "~/lib/validation";

// The one path every submission takes, from the HTML form and the API alike:
// size limit → schema → Turnstile → store. The token is only spent once the fields are valid, and
// nothing is stored unless the provider said yes.

export const TOKEN_FIELD = "cf-turnstile-response";

export type AcceptResult =
  | { ok: true; id: string; receivedAt: string }
  | { ok: false; code: ErrorCode; fieldErrors?: FieldErrors; values?: Record<string, string> };

export interface AcceptInput {
  request: Request;
  form: FormDef;
  env: Env;
  /** For work after the response (first webhook delivery). */
  ctx: { waitUntil(promise: Promise<unknown>): void };
}

/** Runs the accept pipeline. Expected refusals come back as codes; it throws only on bugs. */
export async function acceptSubmission({ request, form, env, ctx }: AcceptInput): Promise<AcceptResult> {
  const body = await readBody(request);
  if (!body.ok) return { ok: false, code: body.code };

  const validation = validateFields(form, body.fields);
  if (!validation.ok) {
    return { ok: false, code: "validation_failed", fieldErrors: validation.errors, values: validation.values };
  }

  const settings = readSettings(env);
  const verdict = await verifyTurnstile({
    token: body.fields[TOKEN_FIELD],
    secret: settings.secretKey,
    verifyUrl: settings.verifyUrl,
    remoteIp: clientIp(request),
    expectedAction: form.id,
    expectedHostnames: expectedHostnames(settings, request),
  });
  const echo = Object.fromEntries(Object.entries(validation.values).map(([k, v]) => [k, v === null ? "" : String(v)]));
  if (!verdict.ok) {
    if (ERRORS[verdict.code].status >= 500) {
      console.error(`Turnstile verification unavailable for form ${form.id}: ${verdict.code} (${verdict.detail ?? ""})`);
    }
    return { ok: false, code: verdict.code, values: echo };
  }

  // One batch: the submission and its outbox rows land together or not at all (issue 3).
  const id = crypto.randomUUID();
  const outbox = outboxStatements(env.DB, env, form, id, Date.now());
  const stored = await storeSubmission(
    env.DB,
    {
      id,
      formId: form.id,
      fields: validation.values,
      verification: { hostname: verdict.hostname, action: verdict.action, challengeTs: verdict.challengeTs },
    },
    outbox,
  );
  if (!stored.ok) return { ok: false, code: stored.code, values: echo };
  // The first attempt runs after the response; the scheduled drain covers anything it misses.
  if (outbox.length > 0) ctx.waitUntil(deliverSubmissionNow(env.DB, env, id));
  return { ok: true, id: stored.id, receivedAt: stored.receivedAt };
}
