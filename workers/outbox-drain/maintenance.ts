import { FORMS } from "~/forms/registry";
import { parseSettings } from "~/lib/settings/settings.server";
import { drainOutbox } from "~/lib/delivery/delivery.server";
import { bindingMailer, type EmailMessageConstructor, type Mailer, type SendEmailBinding } from "~/lib/delivery/mailer.server";
import { pruneConfirmationLimits } from "~/lib/delivery/confirmation.server";
import { pruneRateLimits } from "~/lib/http/rate-limit.server";
import { applyRetention } from "~/lib/storage/retention.server";

// The maintenance jobs the scheduled Worker runs every minute. Adding a job is adding an entry to
// MAINTENANCE_JOBS. (Kept apart from index.ts: a Worker module may only export handlers.)

/** The drain Worker's env: the site's settings plus the send_email binding only it can hold (ADR 016). */
export type DrainEnv = Env & { SEND_EMAIL?: SendEmailBinding };

/** What index.ts hands the jobs: `EmailMessage` from `cloudflare:email`, imported there alone. */
export interface MaintenanceDeps {
  EmailMessage?: EmailMessageConstructor;
}

export interface MaintenanceJob {
  name: string;
  run(env: DrainEnv, nowMs: number, deps: MaintenanceDeps): Promise<unknown>;
}

export type JobResult = { name: string; ok: true; result: unknown } | { name: string; ok: false; error: string };

/** Per run: at most this many deliveries, and no new claims after this long (runs may overlap safely). */
export const DRAIN_LIMIT = 500;
export const DRAIN_BUDGET_MS = 45_000;

/** The Worker's mailer, or null when the binding is missing: e-mail deliveries are then held, not lost. */
export function drainMailer(env: DrainEnv, deps: MaintenanceDeps): Mailer | null {
  return env.SEND_EMAIL && deps.EmailMessage ? bindingMailer(env.SEND_EMAIL, deps.EmailMessage) : null;
}

export const MAINTENANCE_JOBS: MaintenanceJob[] = [
  {
    name: "drain-outbox",
    run: (env, _nowMs, deps) =>
      drainOutbox(env.DB, parseSettings(env), { limit: DRAIN_LIMIT, budgetMs: DRAIN_BUDGET_MS, mailer: drainMailer(env, deps) }),
  },
  // Every fixed-window limit: the rate-limit windows and the confirmation e-mails' 24 h slots.
  {
    name: "prune-rate-limits",
    run: async (env, nowMs) => {
      const windows = await pruneRateLimits(env.DB, nowMs);
      await pruneConfirmationLimits(env.DB, nowMs);
      return windows;
    },
  },
  // admin (issue 5): each form's retentionDays (docs/decisions/005-retention-and-deletion.md).
  { name: "apply-retention", run: (env, nowMs) => applyRetention(env.DB, FORMS, nowMs) },
];

/** Runs every job side by side; one failing job is logged and never stops the others. */
export async function runMaintenance(
  env: DrainEnv,
  jobs = MAINTENANCE_JOBS,
  nowMs = Date.now(),
  deps: MaintenanceDeps = {},
): Promise<JobResult[]> {
  const settled = await Promise.allSettled(jobs.map((job) => job.run(env, nowMs, deps)));
  return settled.map((outcome, i): JobResult => {
    const name = jobs[i].name;
    if (outcome.status === "fulfilled") return { name, ok: true, result: outcome.value };
    console.error(`maintenance job ${name} failed:`, outcome.reason);
    return { name, ok: false, error: String(outcome.reason) };
  });
}
