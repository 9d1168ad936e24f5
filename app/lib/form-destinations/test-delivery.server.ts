import type { DestinationKind } from "~/forms/schema";
import type { AdminUser } from "~/lib/auth/admin-user.server";
import { sampleValue } from "~/lib/forms/sample-value";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { deliverLeasedAfterResponse, LEASE_MS } from "~/lib/delivery/drain.server";
import type { Mailer } from "~/lib/sending/mailer.server";
import { leasedOutbox } from "~/lib/delivery/outbox.server";
import { catalogSettings, findForm } from "~/lib/forms/live.server";
import type { ErrorCode } from "~/lib/http/errors";
import { KIND_SPECS } from "~/lib/destinations/registry";
import type { Settings } from "~/lib/settings/settings.server";
import sql from "sql-template-tag";
import { runBatch } from "~/lib/storage/sql.server";
import { plannedState } from "~/lib/storage/submission-state.server";
import { guardedSubmissionInsert } from "~/lib/storage/submissions.server";

// "Send a test" for one destination of a live form: a submission of sample values, marked as a test,
// goes through the outbox like any other (one row, for that destination), so its attempts show in the
// submission's delivery timeline. A kind without a test label is not offered (docs/destinations.md).

/** The kinds the console offers a test of: each kind's module says (a confirmation's is a form sent to oneself). */
export const TESTABLE_KINDS: readonly DestinationKind[] = KIND_SPECS.filter((spec) => spec.testLabel !== null).map((spec) => spec.kind);
export type TestableKind = DestinationKind;

export interface TestContext {
  env: Env;
  settings: Settings;
  user: AdminUser;
  request: Request;
  ctx: { waitUntil(promise: Promise<unknown>): void };
  mailer: Mailer | null;
  nowMs: number;
}

export type TestResult = { ok: true; submissionId: string } | { ok: false; code: ErrorCode | "destination_not_configured" };

/** Stores a test submission for `kind` of form `formId` and starts its delivery after the answer. D1 errors throw (the console's 503). */
export async function sendTest(ctx: TestContext, formId: string, kind: TestableKind): Promise<TestResult> {
  const db = ctx.env.DB;
  const found = await findForm({ cloudflare: { env: ctx.env }, settings: ctx.settings }, formId);
  if (!found.ok) return { ok: false, code: found.code };
  const { live, catalog } = found;
  const settings = catalogSettings(ctx.settings, catalog);
  const id = crypto.randomUUID();
  const owner = `test:${id}`;
  const outbox = leasedOutbox(db, settings, live.form, id, ctx.nowMs, owner, LEASE_MS, null, kind);
  if (outbox.claims.length === 0) return { ok: false, code: "destination_not_configured" };
  const fields = Object.fromEntries(live.form.fields.map((field) => [field.name, sampleValue(field)]));
  const insert = guardedSubmissionInsert(
    db,
    { id, formId, formVersion: live.version, fields, verification: null, test: true },
    {
      nowMs: ctx.nowMs,
      idempotencyKey: null,
      fingerprint: null,
      onlyIf: sql`1 = 1`,
      state: plannedState({ quarantined: false, deliveries: outbox.claims.length }),
    },
  );
  await runBatch(db, {
    submission: insert.statement,
    outbox: outbox.statements,
    audit: auditStatement(db, {
      user: ctx.user,
      request: ctx.request,
      action: "form.test",
      target: formId,
      detail: { destination: kind, submission: id },
      nowMs: ctx.nowMs,
    }),
  });
  ctx.ctx.waitUntil(deliverLeasedAfterResponse(db, settings, live.form, insert.stored, outbox.claims, owner, { mailer: ctx.mailer }));
  return { ok: true, submissionId: id };
}
