import { StateBadge } from "~/components/admin/state-badge";
import { formatUtc } from "~/lib/admin/http";
// The one shape of a delivery as the console reads it (a type import: nothing server-side reaches the browser).
import type { DeliveryView as Delivery } from "~/lib/admin/queries.server";


/** Every destination of a submission with every attempt: time, HTTP status, latency, response excerpt. */
export function DeliveryTimeline({ deliveries }: { deliveries: Delivery[] }) {
  if (deliveries.length === 0) return <p>This submission has no deliveries.</p>;
  return (
    <>
      {deliveries.map((d) => (
        <section key={d.id} aria-label={`Delivery to ${d.destination}`}>
          <h3>
            {d.destination} <StateBadge state={d.status} />
          </h3>
          <p>
            Webhook id <code>{d.id}</code>, {`${d.log.length} attempt${d.log.length === 1 ? "" : "s"} logged`}
            {d.status === "delivered" ? `, delivered ${formatUtc(d.deliveredAt)}` : ""}
            {d.status === "pending" ? `, next attempt ${formatUtc(new Date(d.nextAttemptAt).toISOString())}` : ""}
            {d.lastError ? `, last error: ${d.lastError}` : ""}.
          </p>
          {d.log.length > 0 ? (
            <table>
              <caption className="visually-hidden">Attempts to deliver to {d.destination}</caption>
              <thead>
                <tr><th scope="col">Time</th><th scope="col">HTTP status</th><th scope="col" className="num">Latency</th><th scope="col">Error</th><th scope="col">Response excerpt</th></tr>
              </thead>
              <tbody>
                {d.log.map((a, i) => (
                  <tr key={i}>
                    <td>{formatUtc(a.attemptedAt)}</td>
                    <td>{a.httpStatus ?? "no response"}</td>
                    <td className="num">{a.latencyMs} ms</td>
                    <td>{a.error ?? "—"}</td>
                    <td>{a.responseExcerpt ? <pre>{a.responseExcerpt}</pre> : "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>No attempt yet.</p>
          )}
        </section>
      ))}
    </>
  );
}
