import { z } from "zod";
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { requireAdminAction, requireUser } from "~/lib/admin/auth.server";
import {
  clearSetting,
  GENERATED_SETTINGS,
  loadSettingViews,
  retirePreviousSecret,
  rotateSecret,
  setSetting,
  TYPED_SETTINGS,
  type SettingView,
} from "~/lib/admin/destinations.server";
import { consoleRoute } from "~/lib/admin/console-route.server";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/admin/http";
import { readAdminForm, TokenSchema } from "~/lib/admin/input.server";
import { sendTest, TESTABLE_KINDS } from "~/lib/admin/test-delivery.server";
import type { KindSetting } from "~/lib/destinations/kind";
import { KIND_SPECS } from "~/lib/destinations/registry";
import { loadDestinationHealth, resumePausedDestination } from "~/lib/admin/destination-health.server";
import { describeBulkRedelivery, redeliverDeadInBulk } from "~/lib/admin/actions.server";
import { consoleRedelivery, deadFilterOf } from "~/lib/admin/bulk-redelivery.server";
import { countDeadByDestination } from "~/lib/storage/deliveries.server";
import { configuredDestinations } from "~/lib/destinations/configured.server";
import { catalogSettings, formCatalog } from "~/lib/forms/live.server";
import { ERRORS } from "~/lib/http/errors";
import { refusal } from "~/lib/http/responses.server";
import { getFormRow } from "~/lib/storage/forms.server";
import type { loader as layoutLoader } from "~/routes/admin";

// Where one form's submissions go, for console and code forms alike. A value set in the environment
// wins and is shown as such, read-only; the others are kept sealed in D1 (docs/destinations.md).

export const headers = adminHeaders;
export const meta: MetaFunction<typeof loader> = ({ data }) =>
  adminMeta(
    data ? `Destinations of ${data.id}` : "Destinations",
    `Where a form's submissions go: ${data ? Object.values(data.testLabels).join(", ") : "every destination kind"}.`,
  );

/** Each setting's words, from its kind's spec (app/lib/destinations/<kind>/). */
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

export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  await requireUser(request, context);
  const parsed = TokenSchema.safeParse(params.formId);
  if (!parsed.success) throw refusal("form_not_found");
  const id = parsed.data;
  const { catalog, live } = await formExists(context, id);
  const nowMs = Date.now();
  // A form file's settings come from `npm start`; the local sink stands in for a console form's (ADR 066).
  const views = await loadSettingViews(context.cloudflare.env.DB, context.settings, id, nowMs, live?.source !== "code");
  const configured = live ? configuredDestinations(catalogSettings(context.settings, catalog), live.form).map((d) => d.kind) : [];
  // The kinds' words come with the data: the registry (and the checks it holds) stays on the server.
  const labels = Object.fromEntries(
    views.map((view) => {
      const { title, hint, needs, input, type, maxLength, generate, toggle } = LABELS[view.name];
      const generated = generate !== undefined;
      return [
        view.name,
        { title, hint, needs: needs ?? null, input, type, maxLength: maxLength ?? null, generated, toggle: toggle ?? null },
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
  };
});

const PostSchema = z.object({
  intent: z.string().max(60),
  value: z.string().max(4000).optional(),
  destination: z.string().max(20).optional(),
  from: z.string().max(40).optional(),
  to: z.string().max(40).optional(),
});

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
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
  if (verb === "generate" && generated) {
    const result = await rotateSecret(ctx, id, generated);
    if (!result.ok) return answer(false, ERRORS[result.code].message);
    return answer(
      true,
      result.rotated
        ? "A new signing secret was made. The previous one keeps signing beside it for 24 hours: give the new one to your receiver now."
        : "A signing secret was made. Give it to your receiver now: it is not shown again.",
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
  if (verb === "resume" && /^[a-z]{1,20}$/.test(name ?? "")) {
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
});

function Source({ view, generated }: { view: SettingView; generated: boolean }) {
  if (view.source === "environment")
    return <p className="small">{`Set by the environment (${view.variable}), which wins: change it there.`}</p>;
  if (view.unreadable) return <p className="small">Set here, but the settings&apos; encryption key does not open it: set it again.</p>;
  if (view.source === "console") {
    const secret = generated ? " It was shown once, when it was made." : "";
    return <p className="small">{view.shown ? `Set here: ${view.shown}` : `Set here.${secret}`}</p>;
  }
  if (view.source === "local") {
    return (
      <p className="small">
        {view.shown
          ? `Not set here, so under npm start it goes to the local sink: ${view.shown}. Set one to send elsewhere.`
          : "Not set here, so under npm start the local sink's own secret signs (printed at start), and the sink verifies with it."}
      </p>
    );
  }
  if (view.siteWide) {
    const { variable, shown, note } = view.siteWide;
    return <p className="small">{`Not set here, so the site-wide ${variable} stands in${shown ? `: ${shown}` : ""}. ${note}`}</p>;
  }
  return <p className="small">Not set: off.</p>;
}

type HealthRow = ReturnType<typeof useLoaderData<typeof loader>>["health"][number];

/** Paused destinations (and ones failing towards a pause), with the last error and, for admins, Resume. */
function DeliveryHealth({ health, admin }: { health: HealthRow[]; admin: boolean }) {
  if (health.length === 0) return null;
  return (
    <section aria-labelledby="health-title">
      <h2 id="health-title">Failing destinations</h2>
      <ul>
        {health.map((row) => (
          <li key={row.destination}>
            <p>
              <strong>{row.pausedAt !== null ? `${row.destination}: paused` : `${row.destination}: failing`}</strong>
              {row.pausedAt !== null
                ? ` since ${formatUtc(new Date(row.pausedAt).toISOString())}, after ${row.consecutiveFailures} failed attempts in a row. Its deliveries wait without using up their retries; one is tried every few minutes and it resumes when the receiver answers.`
                : ` ${row.consecutiveFailures} failed attempts in a row.`}
            </p>
            <p className="small">{`Last error: ${row.lastError ?? "unknown"}`}</p>
            {admin && row.pausedAt !== null ? (
              <Form method="post" className="actions">
                <button type="submit" name="intent" value={`resume:${row.destination}`}>
                  {`Resume deliveries to ${row.destination}`}
                </button>
              </Form>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Dead deliveries by destination and, for admins, the form that queues them again (in chunks, with progress). */
function BulkRedelivery({ dead, admin }: { dead: Record<string, number>; admin: boolean }) {
  const total = Object.values(dead).reduce((sum, n) => sum + n, 0);
  return (
    <section aria-labelledby="redeliver-title">
      <h2 id="redeliver-title">Dead deliveries</h2>
      {total === 0 ? (
        <p>None: every delivery went, or is still being tried.</p>
      ) : (
        <p>
          {Object.entries(dead)
            .map(([destination, n]) => `${destination}: ${n}`)
            .join(", ")}
        </p>
      )}
      {admin && total > 0 ? (
        <Form method="post" className="filters">
          <label htmlFor="redeliver-destination">
            Destination
            <select id="redeliver-destination" name="destination" defaultValue="">
              <option value="">All</option>
              {Object.keys(dead).map((kind) => (
                <option key={kind} value={kind}>
                  {kind}
                </option>
              ))}
            </select>
          </label>
          <label htmlFor="redeliver-from">
            Made from (UTC)
            <input id="redeliver-from" name="from" type="datetime-local" />
          </label>
          <label htmlFor="redeliver-to">
            Until (UTC)
            <input id="redeliver-to" name="to" type="datetime-local" />
          </label>
          <button type="submit" name="intent" value="redeliver">
            Redeliver dead deliveries
          </button>
        </Form>
      ) : null}
    </section>
  );
}

export default function Destinations() {
  const { id, title, live, views, labels, testLabels, sealing, testable, health, dead } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const role = useRouteLoaderData<typeof layoutLoader>("routes/admin")?.user.role;
  const admin = role === "admin";
  return (
    <>
      <p className="small">
        <Link to={`/admin/forms/${id}`}>{title}</Link>
      </p>
      <h1>Destinations</h1>
      <p>
        Where submissions of <code>{id}</code> go. A setting present in the environment wins and is read-only here, so deployments
        configured by variables keep working unchanged.
      </p>
      {!sealing ? (
        <p className="notice error">
          Settings can be kept here once the settings&apos; encryption key is set: they are encrypted in the database with it
          (docs/destinations.md).
        </p>
      ) : null}
      <div role="status" aria-live="polite">
        {result ? <p className={result.ok ? "notice ok" : "notice error"}>{result.message}</p> : null}
        {result?.secret ? (
          <p className="notice ok">
            New signing secret (shown once): <code className="secret">{result.secret}</code>
          </p>
        ) : null}
      </div>
      {views.map((view) => {
        const label = labels[view.name]!;
        const editable = admin && sealing && view.source !== "environment";
        const inputId = `value-${view.name}`;
        return (
          <section key={view.name} aria-labelledby={`title-${view.name}`} className="destination">
            <h2 id={`title-${view.name}`}>{label.title}</h2>
            <p className="small">{label.hint}</p>
            {label.needs ? <p className="notice">{label.needs}</p> : null}
            <Source view={view} generated={label.generated} />
            {label.generated ? (
              <>
                {view.previousUntil ? (
                  <p className="small">{`The previous secret signs too, until ${formatUtc(new Date(view.previousUntil).toISOString())}.`}</p>
                ) : null}
                {editable ? <p className="small">A new secret is made here and shown once.</p> : null}
                {editable ? (
                  <Form method="post" className="actions">
                    <button type="submit" name="intent" value={`generate:${view.name}`}>
                      {view.source === "console" ? "Rotate the secret" : "Generate a secret"}
                    </button>
                    {view.previousUntil ? (
                      <button type="submit" name="intent" value={`retire:${view.name}`} className="secondary">
                        Stop signing with the previous secret now
                      </button>
                    ) : null}
                  </Form>
                ) : null}
              </>
            ) : label.toggle ? (
              editable ? (
                <Form method="post" className="actions">
                  <input type="hidden" name="value" value={label.toggle.value} />
                  {view.source === "console" ? (
                    <button type="submit" name="intent" value={`clear:${view.name}`} className="secondary">
                      {label.toggle.off}
                    </button>
                  ) : (
                    <button type="submit" name="intent" value={`set:${view.name}`}>
                      {label.toggle.on}
                    </button>
                  )}
                </Form>
              ) : null
            ) : editable ? (
              <Form method="post" className="filters">
                <label className="wide" htmlFor={inputId}>
                  {label.input}
                  <input
                    id={inputId}
                    name="value"
                    type={label.type}
                    required
                    maxLength={label.maxLength ?? 2000}
                    autoComplete="off"
                    spellCheck={false}
                  />
                </label>
                <button type="submit" name="intent" value={`set:${view.name}`}>
                  Save
                </button>
                {view.source === "console" ? (
                  <button type="submit" name="intent" value={`clear:${view.name}`} className="secondary" formNoValidate>
                    Clear
                  </button>
                ) : null}
              </Form>
            ) : null}
          </section>
        );
      })}
      <DeliveryHealth health={health} admin={admin} />
      <BulkRedelivery dead={dead} admin={admin} />
      <h2>Send a test</h2>
      {!live ? (
        <p>Publish the form first: a test is delivered like a submission of its live version.</p>
      ) : testable.length === 0 ? (
        <p>No destination is set up yet.</p>
      ) : admin ? (
        <>
          <p>A submission of sample values, marked as a test, delivered through the outbox: its attempts show in its delivery timeline.</p>
          <Form method="post" className="actions">
            {testable.map((kind) => (
              <button key={kind} type="submit" name="intent" value={`test:${kind}`} className="secondary">
                {`Send a test to ${testLabels[kind]}`}
              </button>
            ))}
          </Form>
        </>
      ) : (
        <p>An admin can send a test to each destination.</p>
      )}
    </>
  );
}
