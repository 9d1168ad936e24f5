import { z } from "zod";
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { OutcomeChart } from "~/components/admin/outcome-chart";
import { formCatalog } from "~/lib/forms/live.server";
import { requireAdminAction, requireUser } from "~/lib/auth/admin-user.server";
import { adminHeaders, adminMeta } from "~/lib/console/page";
import { readAdminForm, TokenSchema } from "~/lib/console/input.server";
import { redeliverFormDead } from "~/lib/submissions/actions.server";
import { loadDashboard } from "~/lib/storage/console-queries.server";
import { readDestinationAttention } from "~/lib/storage/destination-attention.server";
import type { loader as layoutLoader } from "~/routes/admin";
import { ScrollTable } from "~/components/admin/scroll-table";
import { consoleRoute } from "~/lib/console/route.server";
import { uploadProblems } from "~/lib/uploads/attention.server";
import { quarantinedByReason } from "~/lib/spam/console.server";
import { QuarantineReasons } from "~/components/admin/quarantine-reasons";

export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("Dashboard", "Submissions and delivery outcomes per form.");

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  await requireUser(request, context);
  const db = context.cloudflare.env.DB;
  const catalog = await formCatalog(context);
  const [dashboard, destinations, quarantine] = await Promise.all([
    loadDashboard(db, [...catalog.forms.keys()], context.now()),
    readDestinationAttention(db),
    quarantinedByReason(db, context.now()),
  ]);
  const titles: Record<string, string> = Object.fromEntries([...catalog.forms].map(([id, live]) => [id, live.form.title]));
  // Settings problems name variables, never values; destinations needing a person come from the outbox.
  const unreadable = catalog.unreadable.map(({ formId, name }) => ({
    variable: "SETTINGS_ENCRYPTION_KEY",
    message: `The console's ${name} of ${formId} cannot be opened with SETTINGS_ENCRYPTION_KEY: set it again, or put back the key that sealed it`,
  }));
  const forms = [...catalog.forms.values()].map((live) => live.form);
  const problems = [...context.settings.problems, ...uploadProblems(context.cloudflare.env, context.settings, forms), ...unreadable];
  return { ...dashboard, titles, attention: { problems, destinations }, quarantine };
});

const RedeliverFormSchema = z.object({ formId: TokenSchema });

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  const env = context.cloudflare.env;
  const user = await requireAdminAction(request, context);
  const { formId } = await readAdminForm(request, RedeliverFormSchema);
  const result = await redeliverFormDead({ env, settings: context.settings, user, request, now: context.now }, formId);
  return json(result, { status: result.ok ? 200 : 400 });
});

export default function Dashboard() {
  const { forms, days, attention, titles, quarantine } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const role = useRouteLoaderData<typeof layoutLoader>("routes/admin")?.user.role;
  // The column only when there is something to do in it: an always-empty column reads as broken.
  const redeliverable = role === "admin" && forms.some((f) => f.dead > 0);
  const nothingYet =
    forms.every((f) => f.week === 0 && f.quarantined === 0 && f.dead === 0) &&
    days.every((d) => Object.values(d.counts).every((n) => n === 0));
  return (
    <>
      <h1>Dashboard</h1>
      {result ? (
        <p className={result.ok ? "notice ok" : "notice error"} role="status">
          {result.message}
        </p>
      ) : null}
      {attention.problems.length > 0 || attention.destinations.length > 0 ? (
        <section aria-labelledby="attention" className="notice error">
          <h2 id="attention">Needs attention</h2>
          <ul>
            {attention.problems.map((p) => (
              <li key={`${p.variable}:${p.message}`}>{p.message}</li>
            ))}
            {attention.destinations.map((d) => (
              <li key={`${d.formId}:${d.destination}`}>
                {`${d.formId} → ${d.destination}: `}
                {d.held > 0 ? `${d.held} held until the setting is fixed` : ""}
                {d.held > 0 && d.gone > 0 ? "; " : ""}
                {d.gone > 0 ? `${d.gone} dead: the destination no longer exists` : ""}
                {d.reason ? ` (${d.reason})` : ""}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {nothingYet ? (
        <div className="empty">
          <strong>No submissions yet</strong>
          <p>
            Once someone sends a form, it shows up here with its deliveries. Try one yourself:{" "}
            {forms.map((f, i) => (
              <span key={f.formId}>
                {i > 0 ? ", " : ""}
                <a href={`/f/${f.formId}`}>{titles[f.formId] ?? f.formId}</a>
              </span>
            ))}
            .
          </p>
        </div>
      ) : null}
      <ScrollTable label="Submissions per form">
        <thead>
          <tr>
            <th scope="col">Form</th>
            <th scope="col" className="num">
              Today (UTC)
            </th>
            <th scope="col" className="num">
              Last 7 days
            </th>
            <th scope="col" className="num">
              Quarantined
            </th>
            <th scope="col" className="num">
              Dead deliveries
            </th>
            {redeliverable ? <th scope="col">Redeliver</th> : null}
          </tr>
        </thead>
        <tbody>
          {forms.map((f) => (
            <tr key={f.formId}>
              <th scope="row">
                <Link to={`/admin/submissions?form=${encodeURIComponent(f.formId)}`}>{titles[f.formId] ?? f.formId}</Link>{" "}
                <span className="small">{f.formId}</span>
              </th>
              <td className="num" data-label="Today (UTC)">
                {f.today}
              </td>
              <td className="num" data-label="Last 7 days">
                {f.week}
              </td>
              <td className="num" data-label="Quarantined">
                <Link to={`/admin/submissions?form=${encodeURIComponent(f.formId)}&status=quarantined`}>{f.quarantined}</Link>
              </td>
              <td className="num" data-label="Dead deliveries">
                <Link to={`/admin/submissions?form=${encodeURIComponent(f.formId)}&status=dead`}>{f.dead}</Link>
              </td>
              {redeliverable ? (
                <td>
                  {f.dead > 0 ? (
                    <Form method="post">
                      <input type="hidden" name="formId" value={f.formId} />
                      <button type="submit" className="secondary">{`Redeliver ${f.dead} dead`}</button>
                    </Form>
                  ) : (
                    <span className="small">Nothing to redeliver</span>
                  )}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </ScrollTable>
      <h2>Last 14 days</h2>
      <OutcomeChart days={days} />
      <h2>Quarantined, by reason</h2>
      <QuarantineReasons rows={quarantine} />
    </>
  );
}
