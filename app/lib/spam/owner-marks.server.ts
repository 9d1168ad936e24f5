import { akismetSettingsOf, reportToAkismet, type AkismetParams } from "~/lib/spam/akismet.server";
import { markSubmissions, type MarkLabel, type MarkOutcome } from "~/lib/spam/marks.server";

// A mark as the console and the API make it: trained and audited in one batch, then told to Akismet after the
// response, best effort.

/** Akismet calls one request makes for a bulk mark: within Free's 50 fetches per invocation. */
const MAX_FEEDBACK = 40;

export interface MarkContext {
  env: Env;
  publicUrl: string | null;
  user: { id: string; role: string };
  request: Request;
  ctx?: { waitUntil(promise: Promise<unknown>): void };
  now: () => number;
}

/** Marks `ids` as `label` for the signed-in `user`. D1 errors throw; see markSubmissions for the rest. */
export async function markAsOwner(context: MarkContext, ids: readonly string[], label: MarkLabel): Promise<MarkOutcome> {
  const { env, user, request } = context;
  const outcome = await markSubmissions(env.DB, { ids, label, nowMs: context.now(), actor: { user, request } });
  if (outcome.ok) reportMarks(context, outcome, label);
  return outcome;
}

/** Sends changed marks to Akismet after the response, for the posts Akismet checked. */
export function reportMarks(context: Omit<MarkContext, "user">, outcome: Extract<MarkOutcome, { ok: true }>, label: MarkLabel): void {
  const settings = akismetSettingsOf(context.env, context.publicUrl ?? new URL(context.request.url).origin);
  const checked = outcome.changed.filter((mark) => mark.akismetParams !== null).slice(0, MAX_FEEDBACK);
  if (!settings || checked.length === 0 || !context.ctx) return;
  context.ctx.waitUntil(
    Promise.all(checked.map((mark) => reportToAkismet({ settings, params: JSON.parse(mark.akismetParams!) as AkismetParams, as: label }))),
  );
}
