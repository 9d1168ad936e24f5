import { z } from "zod";
import { deleteHook } from "~/lib/hooks/api.server";
import { isHookDestination, listHooks } from "~/lib/hooks/subscriptions.server";
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireAdminAction, requireUser } from "~/lib/auth/admin-user.server";
import {
  clearSetting,
  GENERATED_SETTINGS,
  loadSettingViews,
  retirePreviousSecret,
  rotateSecret,
  setSetting,
  TYPED_SETTINGS,
  type SettingView,
} from "~/lib/form-destinations/settings.server";
import { readAdminForm, TokenSchema } from "~/lib/console/input.server";
import { sendTest, TESTABLE_KINDS } from "~/lib/form-destinations/test-delivery.server";
import type { KindSetting } from "~/lib/destinations/kind";
import { KIND_SPECS } from "~/lib/destinations/registry";
import { loadDestinationHealth, resumePausedDestination } from "~/lib/form-destinations/pause.server";
import { describeBulkRedelivery, redeliverDeadInBulk } from "~/lib/submissions/actions.server";
import { consoleRedelivery, deadFilterOf } from "~/lib/form-destinations/bulk-redelivery.server";
import { countDeadByDestination } from "~/lib/storage/delivery-requeue.server";
import { configuredDestinations } from "~/lib/destinations/configured.server";
import { catalogSettings, formCatalog } from "~/lib/forms/live.server";
import { ERRORS } from "~/lib/http/errors";
import { refusal } from "~/lib/http/responses.server";
import { getFormRow } from "~/lib/storage/forms.server";

// The Destinations page's loader and action: one form's settings as views with their kinds' words.

/** A setting's words as the page shows them (from its kind's spec; the registry stays on the server). */
export interface SettingLabel {
  title: string;
  hint: string;
  needs: string | null;
  input: string;
  type: "url" | "text";
  maxLength: number | null;
  generated: boolean;
  /** It can be an ed25519 key pair too (ADR 120). */
  pair: boolean;
  toggle: { value: string; on: string; off: string } | null;
}

const LABELS = Object.fromEntries(KIND_SPECS.flatMap((spec) => spec.settings.map((setting) => [setting.suffix, setting]))) as Record<
  SettingView["name"],
  KindSetting
>;
const TEST_LABELS = Object.fromEntries(KIND_SPECS.map((spec) => [spec.kind, spec.testLabel ?? spec.label])) as Record<string, string>;

async function formExists(context: LoaderFunctionArgs["context"], id: string) {
  const catalog = await formCatalog(context);
  const live = catalog.forms.get(id);
  if (live) return { catalog, live };
  if (await getFormRow(context.cloudflare.env.DB, id)) return { catalog, live: null };
  throw refusal("form_not_found");
}

/** The page's data: the form, each setting's view and words, what may be tested, failing and dead deliveries. */
export async function loadDestinationsPage({ request, params, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const parsed = TokenSchema.safeParse(params.formId);
  if (!parsed.success) throw refusal("form_not_found");
  const id = parsed.data;
  const { catalog, live } = await formExists(context, id);
  const nowMs = Date.now();
  // A form file's settings come from `npm start`; the local sink stands in for a console form's (ADR 066).
  const views = await loadSettingViews(context.cloudflare.env.DB, context.settings, id, nowMs, live?.source !== "code");
  const configured = live ? configuredDestinations(catalogSettings(context.settings, catalog), live.form).map((d) => d.kind) : [];
  const labels = Object.fromEntries(
    views.map((view) => {
      const { title, hint, needs, input, type, maxLength, generate, generatePair, toggle } = LABELS[view.name];
      const generated = generate !== undefined;
      return [
        view.name,
        {
          title,
          hint,
          needs: needs ?? null,
          input,
          type,
          maxLength: maxLength ?? null,
          generated,
          pair: generatePair !== undefined,
          toggle: toggle ?? null,
        } satisfies SettingLabel,
      ];
    }),
  );
  return {
    id,
    title: live?.form.title ?? id,
    live: Boolean(live),
    views,
    labels,
    testLabels: TEST_LABELS,
    sealing: context.settings.encryptionKeys.length > 0,
    testable: TESTABLE_KINDS.filter((kind) => configured.includes(kind)),
    health: await loadDestinationHealth(context.cloudflare.env.DB, id),
    dead: await countDeadByDestination(context.cloudflare.env.DB, id),
    // The host only: a subscribed URL's path is often the receiver's own secret.
    hooks: (await listHooks(context.cloudflare.env.DB, id)).map(({ id, url, createdAt, createdBy }) => ({
      id,
      host: URL.canParse(url) ? new URL(url).host : "",
      createdAt,
      createdBy,
    })),
  };
}

const PostSchema = z.object({
  intent: z.string().max(60),
  value: z.string().max(4000).optional(),
  destination: z.string().max(20).optional(),
  from: z.string().max(40).optional(),
  to: z.string().max(40).optional(),
});

/** One intent posted from the page: set, clear, generate, retire, resume, redeliver or test. Refusals are thrown Responses. */
export async function handleDestinationsAction({ request, params, context }: ActionFunctionArgs) {
  const user = await requireAdminAction(request, context);
  const parsed = TokenSchema.safeParse(params.formId);
  if (!parsed.success) throw refusal("form_not_found");
  const id = parsed.data;
  await formExists(context, id);
  const { intent, value = "", ...range } = await readAdminForm(request, PostSchema);
  const ctx = { db: context.cloudflare.env.DB, settings: context.settings, user, request, nowMs: Date.now() };
  const [verb, name] = intent.split(":");
  const setting = TYPED_SETTINGS.find((s) => s === name);
  const generated = GENERATED_SETTINGS.find((s) => s === name);
  const answer = (ok: boolean, message: string, secret: string | null = null) => json({ ok, message, secret }, { status: ok ? 200 : 400 });
  if (verb === "set" && setting) {
    const result = await setSetting(ctx, id, setting, value);
    return result.ok ? answer(true, `${LABELS[setting].title} saved.`) : answer(false, result.message ?? ERRORS[result.code].message);
  }
  const cleared = setting ?? generated;
  if (verb === "clear" && cleared) {
    const result = await clearSetting(ctx, id, cleared);
    return result.ok ? answer(true, `${LABELS[cleared].title} cleared.`) : answer(false, ERRORS[result.code].message);
  }
  if ((verb === "generate" || verb === "keypair") && generated) {
    const result = await rotateSecret(ctx, id, generated, verb === "keypair");
    if (!result.ok) return answer(false, ERRORS[result.code].message);
    const made = result.publicKey
      ? "A key pair was made; its private key stays sealed here. Give the receiver the public key (whpk_…) to verify v1a signatures"
      : "A signing secret was made";
    return answer(
      true,
      result.rotated
        ? `${made}. The previous secret keeps signing beside it for 24 hours: give the new one to your receiver now.`
        : `${made}. Give it to your receiver now${result.publicKey ? "" : ": it is not shown again"}.`,
      result.secret,
    );
  }
  if (intent === "redeliver") {
    const parsed = consoleRedelivery(id, range);
    if (!parsed.success) return answer(false, ERRORS.redelivery_invalid.message);
    const ctxAll = { env: context.cloudflare.env, settings: context.settings, user, request, now: context.now };
    const result = describeBulkRedelivery(id, await redeliverDeadInBulk(ctxAll, deadFilterOf(parsed.data)));
    return answer(result.ok, result.message);
  }
  if (verb === "unsubscribe" && name) {
    // Only this form's: the page never ends another form's subscription.
    const own = (await listHooks(ctx.db, id)).some((hook) => hook.id === name);
    const result = own ? await deleteHook(ctx, name) : null;
    return result?.ok ? answer(true, "The subscription was deleted.") : answer(false, ERRORS.hook_not_found.message);
  }
  if (verb === "resume" && (/^[a-z]{1,20}$/.test(name ?? "") || isHookDestination(name ?? ""))) {
    const resumed = await resumePausedDestination(ctx, id, name);
    return resumed
      ? answer(true, `Deliveries to ${name} resumed: the next cron run sends what waits.`)
      : answer(false, `Deliveries to ${name} are not paused.`);
  }
  if (verb === "retire" && generated) {
    const result = await retirePreviousSecret(ctx, id, generated);
    return result.ok
      ? answer(true, "The previous signing secret no longer signs.")
      : answer(false, "There is no previous secret still signing.");
  }
  const kind = TESTABLE_KINDS.find((k) => verb === "test" && k === name);
  if (kind) {
    const result = await sendTest(
      {
        env: context.cloudflare.env,
        settings: context.settings,
        user,
        request,
        ctx: context.cloudflare.ctx,
        mailer: context.mailer,
        nowMs: ctx.nowMs,
      },
      id,
      kind,
    );
    if (result.ok) throw redirect(`/admin/submissions/${result.submissionId}?test=${kind}`, 303);
    return answer(
      false,
      result.code === "destination_not_configured" ? `${TEST_LABELS[kind]} is not set up for this form.` : ERRORS[result.code].message,
    );
  }
  throw refusal("admin_bad_request");
}
