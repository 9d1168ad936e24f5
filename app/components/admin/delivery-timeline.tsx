import { StateBadge } from "~/components/admin/state-badge";
import { formatUtc } from "~/lib/console/page";
import type { DeliveryView as Delivery } from "~/lib/storage/console-queries.server";
import { countOf } from "~/lib/text/count";
import { EMPTY_VALUE, orEmptyMark } from "~/lib/text/empty-value";

/** What the delivery is waiting for, beyond its status: a fix of its settings, or nothing (gone). */
function situation(d: Delivery): string {
  const last = d.log.at(-1)?.error;
  if (d.status === "pending" && last === "config") return " Held until its setting is fixed; it keeps its attempts.";
  if (d.status === "dead" && last === "gone") return " The destination no longer exists (deleted webhook): fix the URL, then redeliver.";
  if (notSent(d)) return " Nothing was sent (see the reason).";
  return "";
}

/** A delivery settled without sending anything (a skipped confirmation): never shown as delivered. */
function notSent(d: Delivery): boolean {
  return d.status === "delivered" && d.log.at(-1)?.error === "skipped";
}

/** A destination kind as the timeline names it (from its module, through the loader). */
export interface TimelineKind {
  label: string;
  idLabel: string | null;
  email: boolean;
}

export function DeliveryTimeline({
  deliveries,
  kinds,
  showReplies,
}: {
  deliveries: Delivery[];
  kinds: Record<string, TimelineKind>;
  showReplies: boolean;
}) {
  if (deliveries.length === 0) return <p>This submission has no deliveries.</p>;
  return (
    <>
      {deliveries.map((d) => (
        <section key={d.id} aria-label={`Delivery to ${d.destination}`}>
          <h3>
            {kinds[d.destination]?.label ?? d.destination} <StateBadge state={notSent(d) ? "not-sent" : d.status} />
          </h3>
          <p>
            {kinds[d.destination]?.idLabel ?? "Delivery id"} <code>{d.id}</code>, {`${countOf(d.log.length, "attempt", "attempts")} logged`}
            {d.status === "delivered" ? `, ${notSent(d) ? "settled" : "delivered"} ${formatUtc(d.deliveredAt)}` : ""}
            {d.status === "pending" ? `, next attempt ${formatUtc(new Date(d.nextAttemptAt).toISOString())}` : ""}
            {d.lastError ? `, ${notSent(d) ? "why" : d.status === "delivered" ? "note" : "last error"}: ${d.lastError}` : ""}.{situation(d)}
          </p>
          {d.log.length > 0 ? (
            // Cards on a phone, so no word is broken to fit five columns into 390 px.
            <table className="cards">
              <caption className="visually-hidden">Attempts to deliver to {d.destination}</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">HTTP status</th>
                  <th scope="col" className="num">
                    Latency
                  </th>
                  <th scope="col">Error</th>
                  {showReplies ? <th scope="col">Response excerpt</th> : null}
                </tr>
              </thead>
              <tbody>
                {d.log.map((a, i) => (
                  <tr key={i}>
                    <td className="lead-cell">{formatUtc(a.attemptedAt)}</td>
                    <td data-label="HTTP status">{a.httpStatus ?? (kinds[d.destination]?.email ? EMPTY_VALUE : "no response")}</td>
                    <td className="num" data-label="Latency">
                      {a.latencyMs} ms
                    </td>
                    <td data-label="Error">{orEmptyMark(a.error)}</td>
                    {showReplies ? (
                      <td data-label="Response excerpt">{a.responseExcerpt ? <pre>{a.responseExcerpt}</pre> : EMPTY_VALUE}</td>
                    ) : null}
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
