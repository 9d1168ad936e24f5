import { Form } from "@remix-run/react";
import type { loadDestinationHealth } from "~/lib/form-destinations/pause.server";
import { formatUtc } from "~/lib/console/page";

// The Destinations page's failing destinations (ADR 071) and dead deliveries (ADR 072), with an admin's
// Resume and bulk redelivery.

type HealthRow = Awaited<ReturnType<typeof loadDestinationHealth>>[number];

/** Paused destinations (and ones failing towards a pause), with the last error and, for admins, Resume. */
export function DeliveryHealth({ health, admin }: { health: HealthRow[]; admin: boolean }) {
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
export function BulkRedelivery({ dead, admin }: { dead: Record<string, number>; admin: boolean }) {
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
