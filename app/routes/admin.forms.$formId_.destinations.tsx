import type { MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { BulkRedelivery, DeliveryHealth } from "~/components/admin/delivery-health";
import { DestinationSetting } from "~/components/admin/destination-setting";
import { HookSubscriptions } from "~/components/admin/hook-subscriptions";
import { consoleRoute } from "~/lib/console/route.server";
import { handleDestinationsAction, loadDestinationsPage } from "~/lib/form-destinations/page.server";
import { adminHeaders, adminMeta } from "~/lib/console/page";
import type { loader as layoutLoader } from "~/routes/admin";

// Where one form's submissions go, for console and code forms alike. A value set in the environment
// wins and is shown as such, read-only; the others are kept sealed in D1 (docs/destinations.md).

export const headers = adminHeaders;
export const meta: MetaFunction<typeof loader> = ({ data }) =>
  adminMeta(
    data ? `Destinations of ${data.id}` : "Destinations",
    `Where a form's submissions go: ${data ? Object.values(data.testLabels).join(", ") : "every destination kind"}.`,
  );

export const loader = consoleRoute(loadDestinationsPage);
export const action = consoleRoute(handleDestinationsAction);

export default function Destinations() {
  const { id, title, live, views, labels, testLabels, sealing, testable, health, dead, hooks } = useLoaderData<typeof loader>();
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
            {result.secret.startsWith("whpk_") ? "Public key (give it to the receiver): " : "New signing secret (shown once): "}
            <code className="secret">{result.secret}</code>
          </p>
        ) : null}
      </div>
      {views.map((view) => (
        <DestinationSetting
          key={view.name}
          view={view}
          label={labels[view.name]!}
          editable={admin && sealing && view.source !== "environment"}
        />
      ))}
      <HookSubscriptions hooks={hooks} admin={admin} />
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
